#!/usr/bin/env bash
# Load test of the examples server beside the floor (axum alone, the same
# route and answer, no contract: bench/floor), in one of two modes.
#
# MODE=saturation (the default): wrk keeps every connection busy, at 16
# and 64 connections, with JSON contract logs written to a file and with
# logging off; it prints requests/s, latency, non-2xx, peak memory and log
# volume, then each ccfn run's throughput as a share of the floor's in the
# same run.
#
#   bash bench/load.sh            # 10 s per run
#   DURATION=30s bash bench/load.sh
#   OTEL=1 bash bench/load.sh     # also JSON logs with OpenTelemetry export
#   INSPECTOR=1 bash bench/load.sh  # also JSON logs with the inspector on
#
# The inspector page (on by default in local mode) is off in every run
# but INSPECTOR=1's.
#
# With OTEL=1, saturation adds a run at each connection count with JSON
# logs and OpenTelemetry export (traces and metrics every second) to a
# collector on loopback that accepts and drops everything (otel_sink in
# bench/common.sh).
#
# MODE=rate: latency below saturation. oha sends a fixed number of
# requests per second, each of RATES in turn (default "5000 20000"), over
# CONNS connections (default 64) for DURATION, with latency correction
# (the time a request waited for its turn to be sent counts, so a stall is
# not hidden by coordinated omission), to the floor and to the examples
# server with JSON contract logs written to a file. It prints the achieved
# requests/s, p50, p99 and p99.9 in ms, non-2xx answers and errors, then
# ccfn's p99 as a multiple of the floor's at each rate. oha runs on
# OHA_THREADS threads (default 1, as wrk runs on one), leaving the other
# cores to the server.
#
#   MODE=rate bash bench/load.sh
#   MODE=rate RATES="2000 5000" CONNS=16 DURATION=20s bash bench/load.sh
#
# Both modes check that every answered request has exactly one `start`
# and one `end` record, and exit 1 when one has not.
#
# Needs wrk (MODE=saturation) or oha and jq (MODE=rate); wrk and jq are
# installed with apt-get and oha with cargo install when missing. Traffic
# goes to 127.0.0.1 only; every run is bounded by DURATION.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${MODE:-saturation}"
DURATION="${DURATION:-10s}"
PORT="${PORT:-3101}"
OUT="${OUT:-target/load}"
URL="http://127.0.0.1:${PORT}/features/callback-and-voicemail-with-email/studio/wait-experience"
RATES="${RATES:-5000 20000}"
CONNS="${CONNS:-64}"
OHA_THREADS="${OHA_THREADS:-1}"

# shellcheck source=bench/common.sh
source bench/common.sh
case "$MODE" in
  saturation) need wrk ;;
  rate) need jq; need_crate oha ;;
  *)
    echo "bench/load.sh: MODE is saturation or rate, not '$MODE'" >&2
    exit 2
    ;;
esac

prepare
cargo build --release -p ccfn-bench-floor --quiet

# start NAME LOG_FILTER SERVER: starts the server on PORT, with the
# assignments of SERVER_ENV (if any) in its environment, its records in
# "$OUT/NAME.log", and waits until it answers; its pid is in SERVER_PID.
start() {
  local name="$1" filter="$2" server="$3"
  # shellcheck disable=SC2086
  "${CLEAN_ENV[@]}" CCFN_INSPECTOR=off ${SERVER_ENV:-} CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_LOG="$filter" \
    "./target/release/$server" >"$OUT/$name.log" 2>"$OUT/$name.stderr" &
  SERVER_PID=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null -X HEAD "$URL" && break
    sleep 0.1
  done
}

# stop PID: stops a server with SIGTERM and waits for it. The floor has no
# handler for it and dies of it (status 143); any other failure counts.
stop() {
  kill -TERM "$1"
  wait "$1" || [ $? -eq 143 ]
}

# check_log NAME ANSWERED CONNECTIONS: prints whether "$OUT/NAME.log" has
# one `start` and one `end` per answered request; returns 1 if not.
check_log() {
  local name="$1" answered="$2" connections="$3" starts ends extra
  starts=$(grep -c '"step":"start"' "$OUT/$name.log" || true)
  ends=$(grep -c '"step":"end"' "$OUT/$name.log" || true)
  # The load tool may stop counting at the deadline; requests still in
  # flight then are answered and logged after it, at most one per
  # connection.
  extra=$((starts - answered))
  if [ "$starts" -ne "$ends" ] || [ "$extra" -lt 0 ] || [ "$extra" -gt "$connections" ]; then
    printf '  FAIL: %s start, %s end, %s answered\n' "$starts" "$ends" "$answered"
    return 1
  fi
  printf '  ok: %s start = %s end (%s answered)\n' "$starts" "$ends" "$answered"
}

# run NAME CONNECTIONS LOG_FILTER [SERVER]: one wrk run, its line.
run() {
  local name="$1" connections="$2" filter="$3" server="${4:-example-contact-center}"
  local log="$OUT/$name.log"
  start "$name" "$filter" "$server"
  local pid=$SERVER_PID
  wrk -t1 -c"$connections" -d"$DURATION" --latency -s "$OUT/post.lua" "$URL" >"$OUT/$name.wrk"
  local peak_kb
  peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  stop "$pid"

  local answered rps p50 p99 non2xx bytes
  answered=$(awk '/requests in/ {print $1}' "$OUT/$name.wrk")
  rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/$name.wrk")
  p50=$(awk '$1 == "50%" {print $2}' "$OUT/$name.wrk")
  p99=$(awk '$1 == "99%" {print $2}' "$OUT/$name.wrk")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/$name.wrk")
  bytes=$(stat -c %s "$log")
  printf '%-14s %5s %10s %9s %9s %7s %9s %9s' \
    "$name" "$connections" "$rps" "$p50" "$p99" "${non2xx:-0}" "$((peak_kb / 1024)) MiB" \
    "$([ "$filter" = off ] && echo - || echo $((bytes / answered)))"
  if [ "$filter" != off ]; then
    check_log "$name" "$answered" "$connections"
  else
    printf '\n'
  fi
}

saturation() {
  echo "$(nproc) cores, $DURATION per run, $URL"
  printf '%-14s %5s %10s %9s %9s %7s %9s %9s\n' run conns "req/s" p50 p99 non-2xx "peak RSS" "log B/req"
  run floor-16 16 off ccfn-bench-floor
  run json-16 16 info
  run off-16 16 off
  run floor-64 64 off ccfn-bench-floor
  run json-64 64 info
  run off-64 64 off
  local names="json off"
  if [ "${INSPECTOR:-0}" = 1 ]; then
    SERVER_ENV="CCFN_INSPECTOR=on"
    run inspector-16 16 info
    run inspector-64 64 info
    SERVER_ENV=""
    names="$names inspector"
  fi
  if [ "${OTEL:-0}" = 1 ]; then
    otel_sink $((PORT + 1))
    SERVER_ENV="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$((PORT + 1)) OTEL_METRIC_EXPORT_INTERVAL=1000"
    run otel-16 16 info
    run otel-64 64 info
    SERVER_ENV=""
    kill "$SINK_PID"
    names="$names otel"
  fi

  # Throughput as a share of the floor's, from this run only.
  rps() { awk '/Requests\/sec/ {print $2}' "$OUT/$1.wrk"; }
  echo
  for conns in 16 64; do
    for name in $names; do
      awk -v name="$name-$conns" -v a="$(rps "$name-$conns")" -v b="$(rps "floor-$conns")" \
        'BEGIN { printf "%-8s %5.1f%% of the floor'"'"'s req/s\n", name, 100 * a / b }'
    done
  done
}

# The figures of one oha run ("$OUT/NAME.json"), tab-separated: requests/s
# achieved, p50, p99 and p99.9 in seconds ("-" when nothing was
# answered), 2xx and other answers, and errors (no answer).
figures() {
  jq -r '[
      (.summary.requestsPerSec // 0),
      (.latencyPercentiles | .p50, .p99, .["p99.9"] | . // "-"),
      ([.statusCodeDistribution | to_entries[] | select(.key | startswith("2")) | .value] | add // 0),
      ([.statusCodeDistribution | to_entries[] | select(.key | startswith("2") | not) | .value] | add // 0),
      ([.errorDistribution[]] | add // 0)
    ] | @tsv' "$OUT/$1.json"
}

# at_rate NAME RATE LOG_FILTER SERVER: one oha run at RATE requests/s,
# its line. -w lets the requests in flight at the deadline finish, so
# none is counted as an error for being cut off.
at_rate() {
  local name="$1" rate="$2" filter="$3" server="$4"
  start "$name" "$filter" "$server"
  oha --no-tui --output-format json -o "$OUT/$name.json" -z "$DURATION" -w \
    -q "$rate" --latency-correction -c "$CONNS" --worker-threads "$OHA_THREADS" \
    -m POST -T "$POST_TYPE" -d "$POST_BODY" "$URL"
  stop "$SERVER_PID"

  local rps p50 p99 p999 ok non2xx errors
  IFS=$'\t' read -r rps p50 p99 p999 ok non2xx errors < <(figures "$name")
  awk -v name="$name" -v rate="$rate" -v rps="$rps" -v p50="$p50" -v p99="$p99" \
    -v p999="$p999" -v non2xx="$non2xx" -v errors="$errors" '
    function ms(s) { return s == "-" ? "-" : sprintf("%.3f", s * 1000) }
    BEGIN {
      printf "%-12s %6s %9.0f %9s %9s %9s %7s %7s", name, rate, rps, ms(p50), ms(p99), ms(p999), non2xx, errors
    }'
  if [ "$filter" != off ]; then
    check_log "$name" "$((ok + non2xx))" "$CONNS"
  else
    printf '\n'
  fi
}

fixed_rate() {
  echo "$(nproc) cores, $(oha --version) on $OHA_THREADS thread(s), $DURATION per run, $CONNS connections, $URL"
  printf '%-12s %6s %9s %9s %9s %9s %7s %7s\n' run rate "req/s" "p50 ms" "p99 ms" "p99.9 ms" non-2xx errors
  local r
  for r in $RATES; do
    at_rate "floor-$r" "$r" off ccfn-bench-floor
    at_rate "json-$r" "$r" info example-contact-center
  done

  # ccfn's p99 as a multiple of the floor's, at each rate of this run.
  echo
  local floor json
  for r in $RATES; do
    floor=$(figures "floor-$r" | cut -f3)
    json=$(figures "json-$r" | cut -f3)
    awk -v rate="$r" -v a="$json" -v b="$floor" 'BEGIN {
      if (a == "-" || b == "-" || b == 0) { printf "at %6s/s: no p99 to compare\n", rate; exit }
      printf "at %6s/s: ccfn p99 %.3f ms, the floor'"'"'s %.3f ms: %.2fx\n", rate, a * 1000, b * 1000, a / b
    }'
  done
}

if [ "$MODE" = rate ]; then
  fixed_rate
else
  saturation
fi
