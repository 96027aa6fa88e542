module unexported

go 1.26

require golang.org/x/tools v0.35.0

require (
	golang.org/x/mod v0.26.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
)

replace golang.org/x/sync => golang.org/x/sync v0.21.0
