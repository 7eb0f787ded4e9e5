#!/usr/bin/env bash
# The `openai` provider's overhead per call (request build, HTTP, SSE parse,
# accounting) beyond the server's own time: a loopback server that answers at
# once (python3, HTTP/1.1, chunked SSE with usage), N calls through
# `tissvm run` (a plan of N PROMPT_AGENTs, minus a plan of none: start-up)
# against N calls through one `curl` process, in the same run, paired R times.
#   benches/provider_overhead.sh [N] [R] [TISSVM]
set -euo pipefail
N=${1:-200}
R=${2:-5}
TISSVM=${3:-target/release/tissvm}
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$dir"' EXIT

cat > "$dir/server.py" <<'PY'
import http.server, sys
EVENTS = [b'data: {"choices":[{"delta":{"content":"Hello"},"finish_reason":"stop"}]}\n\n',
          b'data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}\n\n',
          b'data: [DONE]\n\n']
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in EVENTS) + b"0\r\n\r\n"
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n" + body)
        self.wfile.flush()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$dir/server.py" > "$dir/port" &
server=$!
for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$dir/port")/v1"

{ echo 'TASK "bench"'; echo 'STEP "ask" {'; for i in $(seq "$N"); do echo "    PROMPT_AGENT \"q$i\" INTO A"; done; echo '}'; } > "$dir/many.tiss"
printf 'TASK "bench"\nSTEP "ask" {\n    LOG "none"\n}\n' > "$dir/none.tiss"
body='{"model":"m","messages":[{"role":"user","content":"q"}],"stream":true,"stream_options":{"include_usage":true}}'
curl_args=()
for _ in $(seq "$N"); do curl_args+=(-X POST -H "Content-Type: application/json" -d "$body" "$url/chat/completions" --next); done
unset 'curl_args[${#curl_args[@]}-1]'

now() { date +%s%N; }
flags=(--provider openai --base-url "$url" --model m --workdir "$dir" --output-format json)
for r in $(seq "$R"); do
    t0=$(now); "$TISSVM" run "$dir/many.tiss" "${flags[@]}" >/dev/null 2>&1
    t1=$(now); "$TISSVM" run "$dir/none.tiss" "${flags[@]}" >/dev/null 2>&1
    t2=$(now); curl -s -N "${curl_args[@]}" >/dev/null
    t3=$(now)
    tiss=$(( (t1 - t0 - (t2 - t1)) / N / 1000 ))
    curl_us=$(( (t3 - t2) / N / 1000 ))
    echo "round $r: tissvm ${tiss}us per call, curl ${curl_us}us per call, overhead $((tiss - curl_us))us"
done
