#!/usr/bin/env bash
# A live provider's overhead per call (request build, HTTP, stream parse,
# accounting) beyond the server's own time: a loopback server that answers at
# once (python3, HTTP/1.1, chunked, each provider's wire format with usage), N
# calls through `tissvm run` (a plan of N PROMPT_AGENTs, minus a plan of none:
# start-up) against N calls through one `curl` process, in the same run,
# paired R times. PROVIDER: openai (SSE chat), ollama (NDJSON /api/chat) or
# completion (llama.cpp's SSE /completion).
#   benches/provider_overhead.sh [N] [R] [TISSVM] [PROVIDER]
set -euo pipefail
N=${1:-200}
R=${2:-5}
TISSVM=${3:-target/release/tissvm}
PROVIDER=${4:-openai}
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$dir"' EXIT

cat > "$dir/server.py" <<'PY'
import http.server, sys
ANSWERS = {
    "/v1/chat/completions": (b"text/event-stream", [
        b'data: {"choices":[{"delta":{"content":"Hello"},"finish_reason":"stop"}]}\n\n',
        b'data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}\n\n',
        b'data: [DONE]\n\n']),
    "/api/chat": (b"application/x-ndjson", [
        b'{"model":"m","message":{"role":"assistant","content":"Hello"},"done":false}\n',
        b'{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",'
        b'"prompt_eval_count":12,"eval_count":1}\n']),
    "/completion": (b"text/event-stream", [
        b'data: {"index":0,"content":"Hello","stop":false}\n\n',
        b'data: {"index":0,"content":"","stop":true,"tokens_evaluated":12,"tokens_predicted":1}\n\n']),
}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        kind, events = ANSWERS[self.path]
        body = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n" + body)
        self.wfile.flush()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$dir/server.py" > "$dir/port" &
server=$!
for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
root="http://127.0.0.1:$(cat "$dir/port")"
case "$PROVIDER" in
    openai) flags=(--provider openai --base-url "$root/v1" --model m); path=/v1/chat/completions
            body='{"model":"m","messages":[{"role":"user","content":"q"}],"stream":true,"stream_options":{"include_usage":true}}' ;;
    ollama) flags=(--provider ollama --base-url "$root" --model m); path=/api/chat
            body='{"model":"m","messages":[{"role":"user","content":"q"}],"stream":true}' ;;
    completion) flags=(--provider completion --template chatml --base-url "$root"); path=/completion
            body='{"prompt":"q","stream":true}' ;;
    *) echo "PROVIDER: openai, ollama or completion" >&2; exit 2 ;;
esac

{ echo 'TASK "bench"'; echo 'STEP "ask" {'; for i in $(seq "$N"); do echo "    PROMPT_AGENT \"q$i\" INTO A"; done; echo '}'; } > "$dir/many.tiss"
printf 'TASK "bench"\nSTEP "ask" {\n    LOG "none"\n}\n' > "$dir/none.tiss"
curl_args=()
for _ in $(seq "$N"); do curl_args+=(-X POST -H "Content-Type: application/json" -d "$body" "$root$path" --next); done
unset 'curl_args[${#curl_args[@]}-1]'

now() { date +%s%N; }
flags+=(--workdir "$dir" --output-format json)
for r in $(seq "$R"); do
    t0=$(now); "$TISSVM" run "$dir/many.tiss" "${flags[@]}" >/dev/null 2>&1
    t1=$(now); "$TISSVM" run "$dir/none.tiss" "${flags[@]}" >/dev/null 2>&1
    t2=$(now); curl -s -N "${curl_args[@]}" >/dev/null
    t3=$(now)
    tiss=$(( (t1 - t0 - (t2 - t1)) / N / 1000 ))
    curl_us=$(( (t3 - t2) / N / 1000 ))
    echo "round $r ($PROVIDER): tissvm ${tiss}us per call, curl ${curl_us}us per call, overhead $((tiss - curl_us))us"
done
