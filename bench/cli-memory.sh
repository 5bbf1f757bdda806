#!/usr/bin/env bash
# Peak memory of the operator's command under hostile input.
#
# Builds `ccfn` in release mode, makes each hostile input in a temporary
# folder (removed at the end), runs the commands that read it under
# /usr/bin/time -v and prints a table of their peak resident memory:
#
# - a gzip file holding one 2 GiB line between two records, made by
#   streaming (never 2 GiB in memory): `ccfn logs`, `ccfn logs
#   --invocations`, `ccfn diagnose`, and `ccfn logs` reading the same
#   stream decompressed on its standard input;
# - 2,048 invocations that never end, each with a 512 KiB error (a 1 GiB
#   log): `ccfn logs --invocations`, `ccfn diagnose`, `ccfn logs --error`;
# - 300 ERROR records of nearly 1 MiB each (the longest line kept):
#   `ccfn logs --error --limit 100`, which holds the last records until
#   the end;
# - 10,000 invocations that start, each with a 32 KiB event, and never
#   end (a 330 MB log): `ccfn package`, which keeps the start records it
#   rebuilds requests from;
# - an HTTP server on 127.0.0.1 (python3) whose answer to the POST never
#   ends: `ccfn probe`;
# - a fake platform on 127.0.0.1 (python3) for `ccfn calls list --limit
#   10000`, one hostile answer per path prefix: one 100 MB page (chunked,
#   no Content-Length); a page just under 16 MiB of the JSON that expands
#   most once parsed (`0,` items; `{},` items; small nested arrays); pages
#   just under 16 MiB each (16 calls with a 1 MiB field) linking the next
#   one for ever; pages of 4 MiB (4 such calls) linking the next one for
#   ever, so that the listing fills its budget and then shows it all;
#   pages of 50 arrays nested 100 deep linking the next one for ever (what
#   expands most once shown as pretty JSON: its indentation); and, for
#   comparison, two pages of 1,000 calls with every field the platform's
#   definition gives them (`--limit 2000`).
#
#   bash bench/cli-memory.sh
#   LIMIT_MIB=64 bash bench/cli-memory.sh   # another target
#   ONLY=platform bash bench/cli-memory.sh  # the platform's cases alone
#   CCFN=target/debug/ccfn ONLY=platform bash bench/cli-memory.sh  # no build
#
# The target is under 128 MiB of peak resident memory on every input: the
# script exits 1 when a run passes it. Needs python3 and GNU time
# (installed with apt-get when missing), about 1.8 GiB of free disk.
set -euo pipefail
cd "$(dirname "$0")/.."

LIMIT_MIB="${LIMIT_MIB:-128}"
ONLY="${ONLY:-}"

# shellcheck source=bench/common.sh
source bench/common.sh
need python3
if [ ! -x /usr/bin/time ]; then
  # `time` is also a shell keyword: `need` would find it.
  echo "installing GNU time (the time package) for its peak memory" >&2
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time >/dev/null
fi

if [ -z "${CCFN:-}" ]; then
  cargo build --release -j2 -p ccfn-cli --bin ccfn --quiet
  CCFN="$PWD/target/release/ccfn"
fi

WORK="$(mktemp -d)"
SERVER=""
PLATFORM=""
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  if [ -n "$PLATFORM" ]; then kill "$PLATFORM" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

RECORD_1='{"timestamp":"2026-11-21T21:00:00.000Z","level":"INFO","function":"wait-experience","invocation_id":"i-1","step":"start","message":"Function started"}'
RECORD_2='{"timestamp":"2026-11-21T21:00:01.000Z","level":"INFO","function":"wait-experience","invocation_id":"i-1","step":"end","message":"Function ended","outcome":"success","execution_ms":1.5}'

if [ "$ONLY" != platform ]; then
echo "making the inputs in a temporary folder" >&2
# One 2 GiB line between two records, gzip-compressed as it is written.
python3 - "$WORK/one-line.log.gz" "$RECORD_1" "$RECORD_2" <<'PY'
import gzip, sys
path, first, last = sys.argv[1:4]
block = b"a" * (1 << 20)
with gzip.open(path, "wb", compresslevel=1) as out:
    out.write(first.encode() + b"\n")
    for _ in range(2048):
        out.write(block)
    out.write(b"\n" + last.encode() + b"\n")
PY
# 2,048 invocations that start and fail, and never end.
python3 - "$WORK/unfinished.log" <<'PY'
import sys
error = "E" * (512 * 1024)
with open(sys.argv[1], "w") as out:
    for n in range(2048):
        stamp = "2026-11-21T21:%02d:%02d.000Z" % (n // 60 % 60, n % 60)
        common = '"function":"wait-experience","invocation_id":"never-%d"' % n
        out.write('{"timestamp":"%s","level":"INFO",%s,"step":"start","message":"Function started","event":{"CallSid":"CA%032d"}}\n' % (stamp, common, n))
        out.write('{"timestamp":"%s","level":"ERROR",%s,"step":"error","message":"Function failed","kind":"panic","error":"%s"}\n' % (stamp, common, error))
PY
# 10,000 invocations that start, with a 32 KiB event, and never end: what
# `package` keeps to rebuild requests.
python3 - "$WORK/starts.log" <<'PY'
import sys
body = "B" * (32 * 1024)
with open(sys.argv[1], "w") as out:
    for n in range(10000):
        stamp = "2026-11-21T21:%02d:%02d.000Z" % (n // 60 % 60, n % 60)
        out.write('{"timestamp":"%s","level":"INFO","function":"wait-experience","invocation_id":"start-%d","step":"start","message":"Function started","event":{"CallSid":"CA%032d","Body":"%s"}}\n' % (stamp, n, n, body))
PY
# 300 ERROR records of nearly 1 MiB each.
python3 - "$WORK/heavy.log" <<'PY'
import sys
error = "E" * (1000 * 1000)
with open(sys.argv[1], "w") as out:
    for n in range(300):
        stamp = "2026-11-21T21:%02d:%02d.000Z" % (n // 60 % 60, n % 60)
        out.write('{"timestamp":"%s","level":"ERROR","function":"wait-experience","invocation_id":"heavy-%d","step":"error","message":"Function failed","kind":"panic","error":"%s"}\n' % (stamp, n, error))
PY

# The endless answer: HEAD is answered, the POST's body never ends.
python3 - "$WORK/port" <<'PY' &
import http.server, sys

class Endless(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("transfer-encoding", "chunked")
        self.send_header("x-ccfn-invocation-id", "bench")
        self.end_headers()
        chunk = b"%x\r\n%s\r\n" % (65536, b"A" * 65536)
        try:
            while True:
                self.wfile.write(chunk)
        except OSError:
            pass

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endless)
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
PY
SERVER=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT="$(cat "$WORK/port")"
fi

# The hostile platform: the first segment of the path picks the answer
# (the base URL given to ccfn ends with it), the rest is the 2010 API's.
python3 - "$WORK/platform-port" <<'PY' &
import http.server, json, os, sys
from urllib.parse import urlsplit, parse_qs

CAP = 16 * 1024 * 1024
UNDER = CAP - 1024
HEAD = b'{"calls":['

def page_of(unit, end):
    # A page of `unit` repeated to just under the cap, closed by `end`.
    count = (UNDER - len(HEAD) - len(end)) // len(unit)
    return HEAD + (unit * count)[:-1] + end

LAST = b'],"next_page_uri":null}'
EXPANDING = {
    "zeros": page_of(b"0,", LAST),
    "objects": page_of(b"{},", LAST),
    "nested": page_of(b"[[[0]]],", LAST),
}
FIELD = b"A" * ((1 << 20) - 1024)

def call(n):
    return (b'{"sid":"CA%032x","status":"completed","direction":"inbound","from":"+15551230000",'
            b'"to":"+15559870000","start_time":"Fri, 20 Nov 2026 10:00:00 +0000","annotation":"%s"}' % (n, FIELD))

def real_call(n):
    sid = "CA%032x" % n
    uri = "/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Calls/" + sid
    subs = ["feedback", "user_defined_messages", "notifications", "recordings", "streams",
            "payments", "user_defined_message_subscriptions", "siprec", "events"]
    return {
        "sid": sid, "date_created": "Fri, 20 Nov 2026 10:00:00 +0000",
        "date_updated": "Fri, 20 Nov 2026 10:01:00 +0000", "parent_call_sid": None,
        "account_sid": "AC0123456789abcdef0123456789abcdef", "to": "+15559870000",
        "to_formatted": "(555) 987-0000", "from": "+15551230000", "from_formatted": "(555) 123-0000",
        "phone_number_sid": "PN0123456789abcdef0123456789abcdef", "status": "completed",
        "start_time": "Fri, 20 Nov 2026 10:00:00 +0000", "end_time": "Fri, 20 Nov 2026 10:01:00 +0000",
        "duration": "60", "price": "-0.01700", "price_unit": "USD", "direction": "inbound",
        "answered_by": None, "api_version": "2010-04-01", "forwarded_from": "+15559870000",
        "group_sid": None, "caller_name": "CALLER NAME", "queue_time": "0", "trunk_sid": None,
        "uri": uri + ".json",
        "subresource_uris": {name: "%s/%s.json" % (uri, name.title().replace("_", "")) for name in subs},
    }

class Platform(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        url = urlsplit(self.path)
        mode = url.path.split("/")[1]
        if mode == "huge":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            unit = b'{"sid":"CA%032x"},' % 0
            block = unit * (65536 // len(unit))
            sent = 0
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(HEAD), HEAD))
                while sent < 100 * 1000 * 1000:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                    sent += len(block)
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            return
        if mode == "real":
            page = int(parse_qs(url.query).get("Page", ["0"])[0])
            nxt = None if page >= 1 else "%s?PageSize=1000&Page=%d" % (url.path, page + 1)
            calls = [real_call(page * 1000 + n) for n in range(1000)]
            body = json.dumps({"calls": calls, "page": page, "page_size": 1000,
                               "next_page_uri": nxt}).encode()
        elif mode == "deep":
            page = int(parse_qs(url.query).get("Page", ["0"])[0])
            nxt = b'],"next_page_uri":"%s?PageSize=1000&Page=%d"}' % (url.path.encode(), page + 1)
            body = HEAD + b",".join([b"[" * 100 + b"]" * 100] * 50) + nxt
        elif mode in ("pages", "quarters"):
            per = 16 if mode == "pages" else 4
            page = int(parse_qs(url.query).get("Page", ["0"])[0])
            nxt = b'],"next_page_uri":"%s?PageSize=1000&Page=%d"}' % (url.path.encode(), page + 1)
            items = b",".join(call(page * per + n) for n in range(per))
            body = HEAD + items + nxt
        else:
            body = EXPANDING[mode]
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Platform)
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
PY
PLATFORM=$!
for _ in $(seq 300); do [ -s "$WORK/platform-port" ] && break; sleep 0.1; done
PLATFORM_PORT="$(cat "$WORK/platform-port")"
# platform PATH: the variables that point ccfn at the hostile platform's
# answer PATH (and no credential of the caller's).
platform() {
  echo "env -u API_KEY_SID -u API_KEY_SECRET ACCOUNT_SID=AC0123456789abcdef0123456789abcdef AUTH_TOKEN=bench-token CCFN_PLATFORM_API_URL=http://127.0.0.1:$PLATFORM_PORT/$1"
}

OVER=0
ROWS=()
# run NAME COMMAND...: runs COMMAND (a shell line) with ccfn under
# /usr/bin/time -v, and adds a row.
run() {
  local name="$1" line="$2" status
  set +e
  bash -c "$line" >/dev/null 2>"$WORK/stderr"
  status=$?
  set -e
  local kib seconds
  kib="$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$WORK/time")"
  seconds="$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time")"
  local mib=$((kib / 1024))
  if [ "$mib" -ge "$LIMIT_MIB" ]; then OVER=1; fi
  local said
  said="$(grep "^ccfn" "$WORK/stderr" | head -2 | paste -sd ";" - || true)"
  ROWS+=("| $name | $mib MiB | $status | $seconds | $said |")
}
T="/usr/bin/time -v -o $WORK/time"

if [ "$ONLY" != platform ]; then
run "gzip, one 2 GiB line: \`logs\`" "$T $CCFN logs --json $WORK/one-line.log.gz"
run "gzip, one 2 GiB line: \`logs --invocations\`" "$T $CCFN logs --invocations $WORK/one-line.log.gz"
run "gzip, one 2 GiB line: \`diagnose\`" "$T $CCFN diagnose $WORK/one-line.log.gz"
run "one 2 GiB line on stdin: \`logs\`" "gzip -dc $WORK/one-line.log.gz | $T $CCFN logs --json"
run "2,048 unfinished, 512 KiB errors: \`logs --invocations\`" "$T $CCFN logs --invocations $WORK/unfinished.log"
run "2,048 unfinished, 512 KiB errors: \`diagnose\`" "$T $CCFN diagnose $WORK/unfinished.log"
run "2,048 unfinished, 512 KiB errors: \`logs --error\`" "$T $CCFN logs --error --json $WORK/unfinished.log"
run "300 records of 1 MB: \`logs --error --limit 100\`" "$T $CCFN logs --error --json --limit 100 $WORK/heavy.log"
run "10,000 unfinished, 32 KiB events: \`package\`" "$T $CCFN package --logs $WORK/starts.log -o $WORK/package"
run "endless HTTP answer: \`probe\`" "$T $CCFN probe --timeout 60s http://127.0.0.1:$PORT/features/x"
fi
run "platform, one 100 MB page: \`calls list --limit 10000\`" "$(platform huge) $T $CCFN calls list --limit 10000"
run "platform, a 16 MiB page of \`0,\`: \`calls list --limit 10000\`" "$(platform zeros) $T $CCFN calls list --limit 10000"
run "platform, a 16 MiB page of \`{},\`: \`calls list --limit 10000 --json\`" "$(platform objects) $T $CCFN calls list --limit 10000 --json"
run "platform, a 16 MiB page of \`[[[0]]],\`: \`calls list --limit 10000 --json\`" "$(platform nested) $T $CCFN calls list --limit 10000 --json"
run "platform, endless 16 MiB pages of 16 calls: \`calls list --limit 10000 --json\`" "$(platform pages) $T $CCFN calls list --limit 10000 --json"
run "platform, endless 4 MiB pages of 4 calls: \`calls list --limit 10000 --json\`" "$(platform quarters) $T $CCFN calls list --limit 10000 --json"
run "platform, endless pages of 50 arrays 100 deep: \`calls list --limit 10000 --json\`" "$(platform deep) $T $CCFN calls list --limit 10000 --json"
run "platform, 2 pages of 1,000 real calls: \`calls list --limit 2000 --json\`" "$(platform real) $T $CCFN calls list --limit 2000 --json"
run "platform, 2 pages of 1,000 real calls: \`calls list --limit 2000\`" "$(platform real) $T $CCFN calls list --limit 2000"

echo
echo "Peak resident memory of ccfn (target: under $LIMIT_MIB MiB)"
echo
echo "| Input: command | Peak RSS | Exit | Wall time | What ccfn said on stderr |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
if [ "$OVER" -ne 0 ]; then
  echo "a run passed $LIMIT_MIB MiB" >&2
  exit 1
fi
