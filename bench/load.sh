#!/usr/bin/env bash
# Load test of the examples server beside the floor (axum alone, the same
# route and answer, no contract: bench/floor): requests/s, latency,
# non-2xx, peak memory and log volume, with JSON contract logs written to
# a file and with logging off, at 16 and 64 connections, then each ccfn
# run's throughput as a share of the floor's in the same run. It also
# checks that every answered request has exactly one `start` and one
# `end` record.
#
#   bash bench/load.sh            # 10 s per run
#   DURATION=30s bash bench/load.sh
#
# With MODE=rate, it measures latency below saturation instead: oha sends
# a fixed number of requests per second (RATES, default "5000 20000") over
# CONNS connections (default 64) for DURATION, with latency correction
# (the time a request waited to be sent counts), to the floor and to the
# examples server with JSON contract logs, and prints p50, p99 and p99.9
# and ccfn's p99 as a multiple of the floor's at the same rate:
#
#   MODE=rate bash bench/load.sh
#   MODE=rate RATES="2000 5000" DURATION=20s bash bench/load.sh
#
# Needs wrk (installed with apt-get when missing); MODE=rate needs oha
# (installed with cargo install when missing) and jq (apt-get). Traffic
# goes to 127.0.0.1 only; every run is bounded by DURATION.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10s}"
PORT="${PORT:-3101}"
OUT="${OUT:-target/load}"
URL="http://127.0.0.1:${PORT}/features/callback-and-voicemail-with-email/studio/wait-experience"

MODE="${MODE:-saturation}"
RATES="${RATES:-5000 20000}"
CONNS="${CONNS:-64}"
BODY="CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000"

# shellcheck source=bench/common.sh
source bench/common.sh
need wrk

prepare
cargo build --release -p ccfn-bench-floor --quiet

# start SERVER LOG_FILTER LOG: starts a server on PORT, waits until it
# answers; its pid is in SERVER_PID.
start() {
  local server="$1" filter="$2" log="$3"
  CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_LOG="$filter" \
    "./target/release/$server" >"$log" 2>"$log.stderr" &
  local pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null -X HEAD "$URL" && break
    sleep 0.1
  done
  SERVER_PID=$pid
}

# rate NAME RATE LOG_FILTER SERVER: one fixed-rate run, its summary line.
rate() {
  local name="$1" rate="$2" filter="$3" server="$4"
  start "$server" "$filter" "$OUT/$name.log"
  oha --no-tui --output-format json -z "$DURATION" -q "$rate" --latency-correction \
    -c "$CONNS" -m POST -T application/x-www-form-urlencoded -d "$BODY" "$URL" >"$OUT/$name.json"
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
  jq -r --arg name "$name" --arg rate "$rate" '
    def ms: . * 1000 * 1000 | round / 1000;
    [$name, $rate, (.summary.requestsPerSec | round),
     (.latencyPercentiles.p50 | ms), (.latencyPercentiles.p99 | ms),
     (.latencyPercentiles["p99.9"] | ms),
     ([.statusCodeDistribution | to_entries[] | select(.key != "200") | .value] | add // 0)]
    | @tsv' "$OUT/$name.json" |
    awk -F'\t' '{ printf "%-12s %6s %9s %9s %9s %9s %7s\n", $1, $2, $3, $4 " ms", $5 " ms", $6 " ms", $7 }'
}

if [ "$MODE" = rate ]; then
  need jq
  command -v oha >/dev/null || cargo install oha --locked
  echo "$(nproc) cores, $DURATION per run, $CONNS connections, $URL"
  printf '%-12s %6s %9s %9s %9s %9s %7s\n' run rate "req/s" p50 p99 p99.9 non-200
  for r in $RATES; do
    rate "floor-$r" "$r" off ccfn-bench-floor
    rate "json-$r" "$r" info example-contact-center
  done
  echo
  for r in $RATES; do
    jq -rn --arg r "$r" --slurpfile a "$OUT/json-$r.json" --slurpfile b "$OUT/floor-$r.json" \
      '"at \($r)/s: ccfn p99 is \(($a[0].latencyPercentiles.p99 / $b[0].latencyPercentiles.p99 * 100 | round) / 100)x the floor'"'"'s"'
  done
  exit 0
fi

# run NAME CONNECTIONS LOG_FILTER [SERVER]
run() {
  local name="$1" connections="$2" filter="$3" server="${4:-example-contact-center}"
  local log="$OUT/$name.log"
  CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_LOG="$filter" \
    "./target/release/$server" >"$log" 2>"$OUT/$name.stderr" &
  local pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null -X HEAD "$URL" && break
    sleep 0.1
  done
  wrk -t1 -c"$connections" -d"$DURATION" --latency -s "$OUT/post.lua" "$URL" >"$OUT/$name.wrk"
  local peak_kb
  peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"
  wait "$pid"

  local answered rps p50 p99 non2xx bytes starts ends
  answered=$(awk '/requests in/ {print $1}' "$OUT/$name.wrk")
  rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/$name.wrk")
  p50=$(awk '$1 == "50%" {print $2}' "$OUT/$name.wrk")
  p99=$(awk '$1 == "99%" {print $2}' "$OUT/$name.wrk")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/$name.wrk")
  bytes=$(stat -c %s "$log")
  starts=$(grep -c '"step":"start"' "$log" || true)
  ends=$(grep -c '"step":"end"' "$log" || true)
  printf '%-14s %5s %10s %9s %9s %7s %9s %9s' \
    "$name" "$connections" "$rps" "$p50" "$p99" "${non2xx:-0}" "$((peak_kb / 1024)) MiB" \
    "$([ "$filter" = off ] && echo - || echo $((bytes / answered)))"
  if [ "$filter" != off ]; then
    # wrk stops counting at the deadline; requests still in flight then
    # are answered and logged after it, at most one per connection.
    local extra=$((starts - answered))
    if [ "$starts" -ne "$ends" ] || [ "$extra" -lt 0 ] || [ "$extra" -gt "$connections" ]; then
      printf '  FAIL: %s start, %s end, %s answered\n' "$starts" "$ends" "$answered"
      return 1
    fi
    printf '  ok: %s start = %s end (%s answered)\n' "$starts" "$ends" "$answered"
  else
    printf '\n'
  fi
}

echo "$(nproc) cores, $DURATION per run, $URL"
printf '%-14s %5s %10s %9s %9s %7s %9s %9s\n' run conns "req/s" p50 p99 non-2xx "peak RSS" "log B/req"
run floor-16 16 off ccfn-bench-floor
run json-16 16 info
run off-16 16 off
run floor-64 64 off ccfn-bench-floor
run json-64 64 info
run off-64 64 off

# Throughput as a share of the floor's, from this run only.
rps() { awk '/Requests\/sec/ {print $2}' "$OUT/$1.wrk"; }
echo
for conns in 16 64; do
  for name in json off; do
    awk -v name="$name-$conns" -v a="$(rps "$name-$conns")" -v b="$(rps "floor-$conns")" \
      'BEGIN { printf "%-8s %5.1f%% of the floor'"'"'s req/s\n", name, 100 * a / b }'
  done
done
