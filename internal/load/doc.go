// Package load runs many deliveries (package attempt makes each one): the
// feed that builds them from templates, the closed and open models, the
// descriptor budget of a run, and the stats (HDR latencies) that account
// for every delivery. It never prints; callers get stats and results.
package load
