package shellcmd

import (
	"strings"
	"testing"
)

// A probe command's literal credentials are masked wherever whsim writes
// the command; one read from the environment, and the document's values
// the contract gives, are not credentials.
func TestMaskCredentials(t *testing.T) {
	cases := []struct{ cmd, want string }{
		// None.
		{`./probe.sh`, ``},
		{`psql -h localhost -p 5432 -U app -tAc "select count(*) from docs where code='$WHSIM_CODE'"`, ``},
		{`PGPASSWORD="$PGPASSWORD" psql -c 'select 1'`, ``},
		{`curl -s -H "Authorization: Bearer $TOKEN" http://localhost:3000/docs/$WHSIM_CODE`, ``},
		{`curl -s -u app:"$APP_PASSWORD" http://h/`, ``},
		{`cd "$PWD" && OLDPWD=/tmp ./probe.sh`, ``},
		{`psql --password -c 'select 1'`, ``},
		{`sqlite3 db.sqlite "select count(*) from docs"`, ``},
		{`curl http://localhost:3000/docs?code=$WHSIM_CODE`, ``},
		// A URL's password, or a token as its user.
		{`psql postgres://app:s3cret@localhost/db -tAc 'select 1'`, `psql postgres://app:xxxxx@localhost/db -tAc 'select 1'`},
		{`psql 'postgresql://app:s3cret@localhost:5432/db'`, `psql 'postgresql://app:xxxxx@localhost:5432/db'`},
		{`curl https://ghp_abc123@api.example.test/x`, `curl https://xxxxx@api.example.test/x`},
		// Variables and options of a credential's name.
		{`PGPASSWORD=s3cret psql -c 'select 1'`, `PGPASSWORD=xxxxx psql -c 'select 1'`},
		{`PGPASSWORD='s3 cret' psql`, `PGPASSWORD='xxxxx' psql`},
		{`MYSQL_PWD=s3cret mysql -u root`, `MYSQL_PWD=xxxxx mysql -u root`},
		{`psql "host=localhost password=s3cret dbname=app"`, `psql "host=localhost password=xxxxx dbname=app"`},
		{`./probe --token=abc123 --code "$WHSIM_CODE"`, `./probe --token=xxxxx --code "$WHSIM_CODE"`},
		{`./probe --api-key abc123`, `./probe --api-key xxxxx`},
		{`export API_TOKEN=abc; ./probe.sh`, `export API_TOKEN=xxxxx; ./probe.sh`},
		// Names of credentials that are no password: as a header's.
		{`curl --oauth2-bearer abc123 http://h/`, `curl --oauth2-bearer xxxxx http://h/`},
		{`curl --cookie 'sid=abc123' http://h/`, `curl --cookie 'xxxxx' http://h/`},
		{`./probe --auth abc123`, `./probe --auth xxxxx`},
		{`SESSION_ID=abc123 ./probe.sh`, `SESSION_ID=xxxxx ./probe.sh`},
		{`./probe --author ann --passage 3`, ``},
		// Headers and curl's user.
		{`curl -H 'Authorization: Bearer abc.def' http://h/`, `curl -H 'Authorization: xxxxx' http://h/`},
		{`curl -H "X-Api-Key: abc123" http://h/`, `curl -H "X-Api-Key: xxxxx" http://h/`},
		{`curl -u app:s3cret http://h/`, `curl -u app:xxxxx http://h/`},
		{`curl -uapp:s3cret http://h/`, `curl -uapp:xxxxx http://h/`},
		// A user name of more than letters and digits (an email address,
		// a dotted name) joined to -u: it read as an option of its own,
		// and the password was shown.
		{`curl -ualice@example.com:s3cret http://h/`, `curl -ualice@example.com:xxxxx http://h/`},
		{`curl -uapp.reader:s3cret http://h/`, `curl -uapp.reader:xxxxx http://h/`},
		{`curl -u'app+ro:s3cret' http://h/`, `curl -u'app+ro:xxxxx' http://h/`},
		{`curl --user=app:s3cret http://h/`, `curl --user=app:xxxxx http://h/`},
		{`curl --user 'app:s3 cret' http://h/`, `curl --user 'app:xxxxx' http://h/`},
		// An empty user, a password in a name's part (pw), a tab before
		// an option's value, and a credential by that name.
		{`curl -u :s3cret http://h/`, `curl -u :xxxxx http://h/`},
		{`DB_PW=s3cret ./probe.sh`, `DB_PW=xxxxx ./probe.sh`},
		{"./probe --password\ts3cret", "./probe --password\txxxxx"},
		{`./probe --credential=s3cret`, `./probe --credential=xxxxx`},
		// The shell's working directory is no password, nor is a blank.
		{`PWD=/srv/app ./probe.sh`, ``},
		{`PGPASSWORD=" " psql -h db`, ``},
		// Clients' one-letter password options, by the program: psql's -p
		// is a port, mysql's -p alone asks and the next word is the
		// database.
		{`mysql -uroot -ps3cret -e "select 1" app`, `mysql -uroot -pxxxxx -e "select 1" app`},
		{`docker exec -i db mysql -u root -p's3 cret' app`, `docker exec -i db mysql -u root -p'xxxxx' app`},
		{`/usr/bin/mariadb -ps3cret`, `/usr/bin/mariadb -pxxxxx`},
		{`mysql -u root -p app -e 'select 1'`, ``},
		{`mysql -u root -p"$MYSQL_PASSWORD" app`, ``},
		{`redis-cli -a s3cret HGET docs "$WHSIM_CODE"`, `redis-cli -a xxxxx HGET docs "$WHSIM_CODE"`},
		{`redis-cli -h 127.0.0.1 -as3cret GET x`, `redis-cli -h 127.0.0.1 -axxxxx GET x`},
		{`mongosh -u app -p s3cret --quiet --eval 'db.docs.countDocuments()'`, `mongosh -u app -p xxxxx --quiet --eval 'db.docs.countDocuments()'`},
		{`sqlcmd -S localhost -U sa -P 's3cret' -Q 'select 1'`, `sqlcmd -S localhost -U sa -P 'xxxxx' -Q 'select 1'`},
		{`sshpass -p s3cret ssh db psql -p 5432 -c 'select 1'`, `sshpass -p xxxxx ssh db psql -p 5432 -c 'select 1'`},
		{`mysql -ps3cret app | psql -p 5433`, `mysql -pxxxxx app | psql -p 5433`},
		{`psql -p5432 -c 'select 1'`, ``},
		{`docker exec db sh -c "mysql -uroot -p\"$MYSQL_PW\" app"`, ``},
		{`docker exec db sh -c "mysql -uroot -p\"s3cret\" app"`, `docker exec db sh -c "mysql -uroot -p\"xxxxx\" app"`},
		{`sh -c "PGPASSWORD=\"s3 cret\" psql"`, `sh -c "PGPASSWORD=\"xxxxx\" psql"`},
		// A value that ends at an escaped quote leaves its backslash: the
		// masked command keeps its quotes, and masks the same again.
		{`sh -c "probe \"token=s3cret\""`, `sh -c "probe \"token=xxxxx\""`},
		{`redis-cli -a`, ``},
		// A URL given to -u is masked as a URL: its password alone, the
		// user, host and the rest of the command left to read.
		{`redis-cli -u redis://app:s3cret@127.0.0.1:6379/0 HGET docs "$WHSIM_CODE"`, `redis-cli -u redis://app:xxxxx@127.0.0.1:6379/0 HGET docs "$WHSIM_CODE"`},
		{`redis-cli -u 'rediss://:s3cret@cache.internal' GET x`, `redis-cli -u 'rediss://:xxxxx@cache.internal' GET x`},
		{`redis-cli -u redis://127.0.0.1:6379 GET x`, ``},
		{`mongosh -u mongodb+srv://app:s3cret@cluster0.example.test/db`, `mongosh -u mongodb+srv://app:xxxxx@cluster0.example.test/db`},
		// A password that holds "://" is still curl's user:PASS.
		{`curl -u app:s3cret://x http://h/`, `curl -u app:xxxxx http://h/`},
		{`curl --user app:s3cret://x http://h/`, `curl --user app:xxxxx http://h/`},
		{`mongosh -p --eval x`, ``},
		// Two in one command.
		{`PGPASSWORD=a psql postgres://u:b@h/db`, `PGPASSWORD=xxxxx psql postgres://u:xxxxx@h/db`},
	}
	for _, c := range cases {
		got, found := MaskCredentials(c.cmd)
		want := c.want
		if want == "" {
			want = c.cmd
		}
		if got != want || found != (c.want != "") {
			t.Errorf("MaskCredentials(%q) = %q, %v; want %q, %v", c.cmd, got, found, want, c.want != "")
		}
		for _, secret := range []string{"s3cret", "abc123", "abc.def", "s3 cret", "ghp_abc123"} {
			if strings.Contains(got, secret) {
				t.Errorf("MaskCredentials(%q) = %q, showing %q", c.cmd, got, secret)
			}
		}
	}
}

// Any command masks without a panic, and masking twice changes nothing
// more: the report's masked command, read back, is shown as it is.
func FuzzMaskCredentials(f *testing.F) {
	for _, s := range []string{`PGPASSWORD=x psql postgres://u:p@h/d`, `curl -u a:b -H 'Authorization: x'`, `--user`, `-u`, `://`, `a=`, `"`, `--token '`,
		`mysql -px`, `redis-cli -a 'x`, `sshpass -p`, `redis-cli -u redis://u:p@h GET x`, `curl -u a:b://c@d`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		once, _ := MaskCredentials(cmd)
		if twice, _ := MaskCredentials(once); twice != once {
			t.Errorf("MaskCredentials(%q) = %q, then %q", cmd, once, twice)
		}
	})
}
