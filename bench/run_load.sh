#!/usr/bin/env bash
# bench/run_load.sh: requests/s and latency of `launchrank serve` under load.
#
# Builds a release build (build-bench/ at the repository root, or $BUILD_DIR), then for
# each request (the 2-D 5-point one of tests/data and the 3-D 7-point K20m one), each
# mode (cached: the same request again and again, after one request warmed the cache;
# uncached: a different "domain" per request, so every request misses) and 1, 8 and 64
# keep-alive connections, starts a fresh daemon on 127.0.0.1 with a temporary database,
# runs bench/load for $DURATION seconds after $WARMUP seconds of warm-up, and prints a
# table. Only loopback is ever contacted.
#
#   bench/run_load.sh                 # the whole table, 10 s per cell
#   DURATION=3 CONNECTIONS="1 64" bench/run_load.sh
#
# Environment: BUILD_DIR, DURATION (s, default 10), WARMUP (s, default 1), CONNECTIONS
# (default "1 8 64"), MODES (default "cached uncached"), THREADS (daemon --threads,
# default: its own default, the number of cores), LOAD_THREADS (client threads,
# default 1), REQUESTS (default "2d 3d").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build-bench}
duration=${DURATION:-10}
warmup=${WARMUP:-1}
connections=${CONNECTIONS:-1 8 64}
modes=${MODES:-cached uncached}
requests=${REQUESTS:-2d 3d}
load_threads=${LOAD_THREADS:-1}

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" --buildtype=release >/dev/null
fi
ninja -C "$build" clients/cli/launchrank bench/load >/dev/null
launchrank=$build/clients/cli/launchrank
load=$build/bench/load

tmp=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# Starts a daemon with an empty database; sets pid and port.
start_daemon() {
    rm -f "$tmp/port" "$tmp"/cache.sqlite*
    local extra=()
    [ -n "${THREADS:-}" ] && extra=(--threads "$THREADS")
    "$launchrank" serve --listen 127.0.0.1:0 --port-file "$tmp/port" --db "$tmp/cache.sqlite" \
        --quiet "${extra[@]}" 2>"$tmp/daemon.log" &
    pid=$!
    for _ in $(seq 200); do
        [ -s "$tmp/port" ] && break
        sleep 0.05
    done
    port=$(cat "$tmp/port")
}

stop_daemon() {
    kill -TERM "$pid"
    wait "$pid" || { echo "daemon exited with $?; its log:" >&2; cat "$tmp/daemon.log" >&2; }
    pid=
}

field() { # field NAME LINE: the value of NAME=... in a result line of bench/load
    grep -o "$1=[^ ]*" <<<"$2" | head -1 | cut -d= -f2
}

echo "launchrank daemon under load: $(nproc) cores, $(uname -m), release build in $build"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
echo "daemon threads: ${THREADS:-default (number of cores)}; client: bench/load, $load_threads thread(s);"
echo "${duration} s measured per cell after ${warmup} s of warm-up; latency from first byte sent to last byte received."
echo
printf '%-12s %-9s %5s %9s %6s %7s %10s %8s %8s %8s %8s %7s\n' request mode conns requests errors \
    cached 'req/s' 'p50 ms' 'p90 ms' 'p99 ms' 'max ms' 'wait ms'
for r in $requests; do
    case $r in
    2d) file=$root/tests/data/ref2_2d5pt_a100_80gb.json name="2-D 5-point" ;;
    3d) file=$root/tests/data/su_k20_7pt.json name="3-D 7-point" ;;
    *) echo "unknown request $r" >&2; exit 2 ;;
    esac
    for mode in $modes; do
        for c in $connections; do
            start_daemon
            args=(--port "$port" --body "$file" --connections "$c" --threads "$load_threads")
            if [ "$mode" = cached ]; then
                "$load" "${args[@]}" --requests 1 >/dev/null # warm the cache
            else
                args+=(--vary-domain --vary-start 1)
            fi
            out=$("$load" "${args[@]}" --duration "$duration" --warmup "$warmup") || true
            stop_daemon
            printf '%-12s %-9s %5s %9s %6s %7s %10s %8s %8s %8s %8s %7s\n' "$name" "$mode" "$c" \
                "$(field requests "$out")" "$(field errors "$out")" "$(field cached "$out")" \
                "$(field rps "$out")" "$(field p50_ms "$out")" "$(field p90_ms "$out")" \
                "$(field p99_ms "$out")" "$(field max_ms "$out")" "$(field oldest_ms "$out")"
        done
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cached: share of answers served from the cache. wait ms: age of the oldest request still"
echo "unanswered when the time was up (such requests are not in the percentiles)."
echo "Target (issue 41): >= 15000 cached requests/s and p99 < 10 ms at 64 connections; uncached no slower."
