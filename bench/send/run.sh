#!/usr/bin/env bash
# Send throughput: `whsim send` (a fresh requestId and varied data per
# request) against hey (one fixed body) and wrk (POST script, one fixed
# body), all against the same minimal receiver on loopback in the same run.
# Prints req/s of each and the ratios (targets: >= 1.0x hey, >= 1.0x wrk, #35),
# the CPU (user+sys) each spends per delivery and whsim/wrk (target <= 1.0x, #35),
# then whsim's peak RSS for 50,000 and 500,000 requests. For wrk's run and
# whsim's as long as it, also the receiver's CPU per delivery and how much
# of the CPUs the pair (client and receiver) used: at the same CPU per
# delivery, a lower share is time the pair left a CPU idle (or, on a shared
# machine, to others), which is where a throughput gap is then.
# whsim runs twice against wrk: --count N, as hey does, and --duration for
# as long as wrk runs (wrk runs only by duration). The second is the like-
# for-like figure: a 1-second run of N calls carries whsim's start-up and
# its first calls' page faults (the buffers and slabs it then fills) over
# few calls, which wrk's 10 seconds spread over ten times as many.
# N (default 50000), C (default 32), BIG (default 500000; 0 skips the
# second RSS run), WRK_SECS (10).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${N:-50000}
c=${C:-32}
big=${BIG:-500000}
secs=${WRK_SECS:-10}

need() { command -v "$1" >/dev/null || { apt-get install -y "$2" >/dev/null || { echo "need $1" >&2; exit 1; }; }; }
need wrk wrk
need hey hey
[ -x /usr/bin/time ] || apt-get install -y time >/dev/null

. bench/send/setup.sh
echo "receiver $url, body $(wc -c <"$tmp/body.json") bytes, $n requests, concurrency $c"

# cpu_us <time file> <deliveries>: user+sys µs per delivery.
cpu_us() { awk -v n="$2" '{printf "%.1f", ($1+$2)*1e6/n}' "$1"; }
# recv_s: the receiver's user+sys seconds so far (/proc, clock ticks).
hz=$(getconf CLK_TCK)
recv_s() { awk -v hz="$hz" '{printf "%.2f", ($14+$15)/hz}' "/proc/$recv_pid/stat"; }
now() { date +%s.%N; }
cpus=$(nproc)
# pair <time file> <receiver s before> <after> <wall before> <after> <deliveries>:
# "receiver µs per delivery, share of the CPUs the pair used"
pair() { awk -v c="$cpus" -v r0="$2" -v r1="$3" -v w0="$4" -v w1="$5" -v n="$6" '{
  printf "%.1f %.0f\n", (r1-r0)*1e6/n, 100*($1+$2+r1-r0)/(c*(w1-w0)) }' "$1"; }
/usr/bin/time -f '%U %S' -o "$tmp/hey.cpu" hey -n "$n" -c "$c" -m POST -T application/json -D "$tmp/body.json" \
  "$url?businessType=$event" >"$tmp/hey.out"
hey_rps=$(awk '/Requests\/sec:/ {print $2}' "$tmp/hey.out")
hey_cpu=$(cpu_us "$tmp/hey.cpu" "$n")
r0=$(recv_s) w0=$(now)
BODY_FILE="$tmp/body.json" /usr/bin/time -f '%U %S' -o "$tmp/wrk.cpu" wrk -t 2 -c "$c" -d "${secs}s" \
  -s bench/send/post.lua "$url?businessType=$event" >"$tmp/wrk.out"
r1=$(recv_s) w1=$(now)
wrk_rps=$(awk '/Requests\/sec:/ {print $2}' "$tmp/wrk.out")
wrk_n=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
wrk_cpu=$(cpu_us "$tmp/wrk.cpu" "$wrk_n")
read -r wrk_recv wrk_pair < <(pair "$tmp/wrk.cpu" "$r0" "$r1" "$w0" "$w1" "$wrk_n")
whsim_run() {
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$tmp/whsim" send --url "$url" --event $event --count "$1" \
    --concurrency "$c" --output json >"$tmp/out.ndjson"
  awk '{print $3}' "$tmp/time" >"$tmp/rss"
  tail -n 1 "$tmp/out.ndjson" | sed -E 's/.*"requestsPerSecond":([0-9.]+).*/\1/'
}
whsim_rps=$(whsim_run "$n")
rss_n=$(cat "$tmp/rss")
whsim_cpu=$(cpu_us "$tmp/time" "$n")
sent=$(tail -n 1 "$tmp/out.ndjson" | sed -E 's/.*"succeeded":([0-9]+).*/\1/')
# As long as wrk: its calls, rate and CPU per call.
r0=$(recv_s) w0=$(now)
/usr/bin/time -f '%U %S' -o "$tmp/dur.time" "$tmp/whsim" send --url "$url" --event $event --duration "${secs}s" \
  --concurrency "$c" --output json >"$tmp/dur.ndjson"
r1=$(recv_s) w1=$(now)
dur_n=$(tail -n 1 "$tmp/dur.ndjson" | sed -E 's/.*"succeeded":([0-9]+).*/\1/')
read -r dur_recv dur_pair < <(pair "$tmp/dur.time" "$r0" "$r1" "$w0" "$w1" "$dur_n")
dur_rps=$(tail -n 1 "$tmp/dur.ndjson" | sed -E 's/.*"requestsPerSecond":([0-9.]+).*/\1/')
dur_cpu=$(cpu_us "$tmp/dur.time" "$dur_n")
distinct=$(head -n -1 "$tmp/out.ndjson" | sed -E 's/.*"requestId":"([^"]+)".*/\1/' | sort -u | wc -l)
if [ "$big" -gt 0 ]; then
  whsim_run "$big" >/dev/null
  rss_big=$(cat "$tmp/rss")
fi

printf 'hey   %10.0f req/s  %6s µs CPU/delivery\n' "$hey_rps" "$hey_cpu"
printf 'wrk   %10.0f req/s  %6s µs CPU/delivery\n' "$wrk_rps" "$wrk_cpu"
printf 'whsim %10.0f req/s  %6s µs CPU/delivery  (--count %s: %s succeeded, %s distinct requestIds)\n' "$whsim_rps" "$whsim_cpu" "$n" "$sent" "$distinct"
printf 'whsim %10.0f req/s  %6s µs CPU/delivery  (--duration %ss, as wrk: %s succeeded)\n' "$dur_rps" "$dur_cpu" "$secs" "$dur_n"
awk -v w="$whsim_rps" -v h="$hey_rps" -v k="$wrk_rps" -v wc="$whsim_cpu" -v kc="$wrk_cpu" -v hc="$hey_cpu" 'BEGIN {
  printf "whsim/hey %.2fx (target >= 1.0x)\nwhsim/wrk %.2fx (target >= 1.0x, #35)\n", w/h, w/k
  printf "CPU per delivery: whsim/wrk %.2fx (target <= 1.0x, #35), whsim/hey %.2fx\n", wc/kc, wc/hc }'
awk -v w="$dur_rps" -v k="$wrk_rps" -v wc="$dur_cpu" -v kc="$wrk_cpu" 'BEGIN {
  printf "as long as wrk: whsim/wrk %.2fx throughput, %.2fx CPU per delivery\n", w/k, wc/kc }'
printf 'receiver CPU per delivery: %s µs driven by wrk, %s µs by whsim; client and receiver used %s%% and %s%% of the %s CPUs\n' \
  "$wrk_recv" "$dur_recv" "$wrk_pair" "$dur_pair" "$cpus"
if [ "$big" -gt 0 ]; then
  printf 'whsim peak RSS: %d MiB for %d requests, %d MiB for %d requests\n' $((rss_n / 1024)) "$n" $((rss_big / 1024)) "$big"
else
  printf 'whsim peak RSS: %d MiB for %d requests\n' $((rss_n / 1024)) "$n"
fi
