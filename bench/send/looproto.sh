#!/usr/bin/env bash
# The send38 experiment (#35): CPU (user+sys) per delivery of looproto, an
# epoll event-loop client that is not part of whsim (bench/send/looproto),
# against wrk -t2 -c32 (post.lua) and `whsim send` (as ab.sh runs it), all
# against the same null receiver, alternating ROUNDS times (default 3).
# Prints each run's µs per delivery and the medians' ratios to wrk's.
# N (default 50000 deliveries), C (32), WRK_SECS (3), VARIANTS (looproto
# flag sets, separated by '|'; @TMP@ in them is the run's scratch directory,
# e.g. "-wait hybrid -check epoll -account @TMP@/ledger.ndjson").
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${N:-50000}
c=${C:-32}
rounds=${ROUNDS:-3}
secs=${WRK_SECS:-3}
variants=${VARIANTS:-"-wait raw|-wait raw -peek|-wait go"}
. bench/send/setup.sh
go build -o "$tmp/looproto" ./bench/send/looproto
# cpu_us <time file> <deliveries>: user+sys and user µs per delivery.
cpu_us() { awk -v n="$2" '{printf "%.2f %.2f\n", ($1+$2)*1e6/n, $1*1e6/n}' "$1"; }
IFS='|' read -r -a vs <<<"$variants"
runs=(wrk whsim)
for i in "${!vs[@]}"; do runs+=("loop$i"); done
one() {
  case $1 in
  wrk)
    BODY_FILE="$tmp/body.json" /usr/bin/time -f '%U %S' -o "$tmp/t" wrk -t 2 -c "$c" -d "${secs}s" \
      -s bench/send/post.lua "$url?businessType=$event" >"$tmp/wrk.out"
    cpu_us "$tmp/t" "$(awk '/requests in/ {print $1}' "$tmp/wrk.out")" ;;
  whsim)
    /usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/whsim" send --url "$url" --event $event \
      --count "$n" --concurrency "$c" --seed 1 --output json >"$tmp/out.ndjson"
    cpu_us "$tmp/t" "$n" ;;
  loop*)
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/looproto" -url "$url?businessType=$event" -c "$c" -t 2 \
      -n "$n" -body "$tmp/body.json" ${vs[${1#loop}]//@TMP@/$tmp} >"$tmp/loop.out"
    cpu_us "$tmp/t" "$(awk '{print $1}' "$tmp/loop.out")" ;;
  esac
}
for r in $(seq "$rounds"); do
  order=("${runs[@]}")
  [ $((r % 2)) -eq 0 ] && order=($(printf '%s\n' "${runs[@]}" | tac))
  for k in "${order[@]}"; do one "$k" >>"$tmp/$k.txt"; done
done
median() { sort -n -k"$2" "$1" | awk -v k="$2" '{v[NR]=$k} END {print v[int((NR+1)/2)]}'; }
w=$(median "$tmp/wrk.txt" 1)
wu=$(median "$tmp/wrk.txt" 2)
for k in "${runs[@]}"; do
  label=$k
  [[ $k == loop* ]] && label="looproto ${vs[${k#loop}]}"
  m=$(median "$tmp/$k.txt" 1)
  mu=$(median "$tmp/$k.txt" 2)
  printf '%s\n  CPU µs/delivery: %s\n  median %s (%.2fx wrk), user %s (%.2fx wrk'"'"'s user)\n' "$label" \
    "$(awk '{print $1}' "$tmp/$k.txt" | paste -sd' ')" "$m" "$(awk -v a="$m" -v b="$w" 'BEGIN{print a/b}')" \
    "$mu" "$(awk -v a="$mu" -v b="$wu" 'BEGIN{print a/b}')"
done
