#!/bin/sh
# tests/cli: the launchrank binary as a user and a script see it: exit statuses,
# where output goes (JSON on stdout, errors on stderr) and what it says.
#
# Usage: cli_cases.sh LAUNCHRANK DATADIR CASE
# Each CASE is one meson test (tests/cli/meson.build names it as a sentence); it
# runs in its own temporary directory and exits 0 (pass) or 1 (fail, saying why).
set -u

LR=$1
DATA=$2
CASE=$3
# meson passes the executable relative to the build directory; each case runs
# elsewhere.
case $LR in /*) ;; *) LR=$(pwd)/$LR ;; esac
case $DATA in /*) ;; *) DATA=$(pwd)/$DATA ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/launchrank-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

# run ARGS...: runs launchrank; stdout in $T/out, stderr in $T/err, status in $rc.
run() {
    rc=0
    "$LR" "$@" >"$T/out" 2>"$T/err" || rc=$?
    last="launchrank $*"
}

# run_stdin FILE ARGS...: the same, with FILE on standard input.
run_stdin() {
    f=$1
    shift
    rc=0
    "$LR" "$@" <"$f" >"$T/out" 2>"$T/err" || rc=$?
    last="launchrank $* < $f"
}

fail() {
    echo "FAIL ($last): $*"
    echo "--- exit status: $rc"
    echo "--- stdout:"
    head -c 4000 "$T/out"
    echo "--- stderr:"
    head -c 4000 "$T/err"
    exit 1
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "expected exit status $1"
}

# expect_in out|err TEXT: the fixed string TEXT occurs in stdout or stderr.
expect_in() {
    grep -F -q -e "$2" "$T/$1" || fail "expected $1 to contain '$2'"
}

expect_not_in() {
    if grep -F -q -e "$2" "$T/$1"; then fail "expected $1 not to contain '$2'"; fi
}

expect_empty() {
    [ ! -s "$T/$1" ] || fail "expected $1 to be empty"
}

case_help() {
    run --help
    expect_rc 0
    for c in estimate rank levels devices serve cache emit measure calibrate fit; do expect_in out "  $c "; done
    expect_in out "Exit status"
    run help
    expect_rc 0
    expect_in out "rank"
    run -h
    expect_rc 0
    for c in estimate rank levels devices cache fit; do
        run "$c" --help
        expect_rc 0
        expect_in out "Usage: launchrank $c"
        expect_in out "Example"
        expect_in out "Exit status"
        run help "$c"
        expect_rc 0
        expect_in out "Usage: launchrank $c"
        # help wins over anything else on the line
        run "$c" --no-such-option -h
        expect_rc 0
    done
    run rank --help
    for o in --table --top --threads --db; do expect_in out "$o"; done
    run estimate --help
    expect_in out "default: no cache"
    run serve --help
    expect_rc 0
    expect_in out "--listen"
    run --version
    expect_rc 0
    expect_in out "launchrank "
    expect_in out "model "
}

case_bad_usage() {
    run
    expect_rc 2
    # --max-body can only lower the protocol's 1 MiB limit: a larger value is refused
    # (it used to be accepted and then had no effect)
    run serve --max-body 2000000 --listen 127.0.0.1:0
    expect_rc 2
    expect_in err "1048576"
    run no-such-command
    expect_rc 2
    expect_in err "unknown command 'no-such-command'"
    expect_in err "launchrank --help"
    run estimate
    expect_rc 2
    expect_in err "missing argument"
    expect_in err "launchrank estimate --help"
    run estimate --no-such-option "$DATA/estimate_2d_5point.json"
    expect_rc 2
    expect_in err "unknown option '--no-such-option'"
    run estimate "$DATA/estimate_2d_5point.json" "$DATA/estimate_2d_5point.json"
    expect_rc 2
    expect_in err "unexpected argument"
    run estimate --table "$DATA/estimate_2d_5point.json"
    expect_rc 2
    run rank --threads many "$DATA/rank_2d_5point.json"
    expect_rc 2
    expect_in err "--threads: 'many'"
    run rank --top
    expect_rc 2
    expect_in err "--top needs a value"
    run rank --top=-3 "$DATA/rank_2d_5point.json"
    expect_rc 2
    run rank --table --pretty "$DATA/rank_2d_5point.json"
    expect_rc 2
    run rank --table=yes "$DATA/rank_2d_5point.json"
    expect_rc 2
    expect_in err "--table takes no value"
    run cache
    expect_rc 2
    run cache defragment
    expect_rc 2
    expect_in err "unknown action 'defragment'"
    expect_empty out
    # Issue 15: one option parser (common/lr_opt.h) for every subcommand and serve:
    # every mistake is worded alike, on every command, in both value forms
    for c in estimate rank devices cache emit measure calibrate fit import-kt serve; do
        run "$c" --no-such-option
        expect_rc 2
        expect_in err "launchrank $c: unknown option '--no-such-option'"
        expect_in err "Try 'launchrank $c --help'."
        expect_empty out
    done
    run rank --threads=many "$DATA/rank_2d_5point.json"
    expect_rc 2
    expect_in err "launchrank rank: --threads: 'many' is not a number of threads from 0 to 1024"
    run serve --threads=many
    expect_rc 2
    expect_in err "launchrank serve: --threads: 'many' is not a number of threads from 1 to 1024"
    run calibrate --gpu
    expect_rc 2
    expect_in err "launchrank calibrate: --gpu needs a value (N)"
    run calibrate --gpu=65
    expect_rc 2
    expect_in err "--gpu: '65' is not a number from 0 to 64"
    # serve's --time-limit takes decimals as rank's does: 0.5 passes, the listen
    # address after it is what is refused
    run serve --time-limit=0.5 --listen=nonsense
    expect_rc 2
    expect_in err "launchrank serve: --listen:"
    run serve --time-limit 0 --listen 127.0.0.1:0
    expect_rc 2
    expect_in err "launchrank serve: --time-limit: '0' is not a number of seconds above 0 and at most 3600"
    run serve --listen
    expect_rc 2
    expect_in err "launchrank serve: --listen needs a value (HOST:PORT)"
    run fit --db= H100-SXM5-80GB
    expect_rc 2
    expect_in err "launchrank fit: --db needs a value (PATH), not an empty one"
    run fit --name=x --db="$T/none.sqlite" -- --H100
    expect_rc 1
    expect_in err "cannot open '$T/none.sqlite'"
    run fit --db "$T/none.sqlite"
    expect_rc 2
    expect_in err "launchrank fit: which device?"
    run import-kt --request=r.json a.json b.json
    expect_rc 2
    expect_in err "launchrank import-kt: unexpected argument 'b.json'"
    run calibrate stray
    expect_rc 2
    expect_in err "launchrank calibrate: unexpected argument 'stray'"
    run serve stray
    expect_rc 2
    expect_in err "launchrank serve: unexpected argument 'stray'"
    run rank --format=xml "$DATA/rank_2d_5point.json"
    expect_rc 2
    expect_in err "launchrank rank: --format: 'xml' is not json, table or t4"
    # "--" ends the options: what follows is the file, even when it looks like one
    cp "$DATA/estimate_2d_5point.json" ./--pretty
    run estimate -- --pretty
    expect_rc 0
    expect_in out '"performance"'
    run estimate --pretty=yes -- --pretty
    expect_rc 2
    expect_in err "--pretty takes no value"
}

case_unreadable_file() {
    run estimate "$T/no-such-request.json"
    expect_rc 1
    expect_in err "no-such-request.json"
    expect_in err "No such file or directory"
    expect_empty out
    run rank "$T"
    expect_rc 1
    expect_in err "cannot read '$T'"
    run cache stats --db "$T/no-such.sqlite"
    expect_rc 1
    expect_in err "no-such.sqlite"
    [ ! -e "$T/no-such.sqlite" ] || fail "cache stats created the database"
}

case_too_large() {
    # One byte past the daemon's body limit (1 MiB), read from standard input.
    head -c 1048577 /dev/zero | tr '\0' ' ' >"$T/big.json"
    run_stdin "$T/big.json" estimate -
    expect_rc 2
    expect_in err '"code":"limit_exceeded"'
    expect_in err "standard input"
}

case_devices() {
    run devices
    expect_rc 0
    for d in V100-PCIe-32GB A100-SXM4-40GB A100-SXM4-80GB K20m H100-SXM5-80GB; do
        expect_in out "\"$d\""
    done
    run devices --table
    expect_rc 0
    expect_in out "GB/s"
    for d in V100-PCIe-32GB A100-SXM4-40GB A100-SXM4-80GB K20m H100-SXM5-80GB; do
        grep -q "^$d  *[0-9]" "$T/out" || fail "no table row for $d"
    done
    # what each built-in's figures rest on (issue 44): measured on the GPU, derived or borrowed
    grep -q "^H100-SXM5-80GB .* 2900  measured$" "$T/out" || fail "H100 not measured"
    grep -q "^A100-SXM4-40GB .* 1400  derived$" "$T/out" || fail "A100 not derived"
    grep -q "^V100-PCIe-32GB .* 790  derived$" "$T/out" || fail "V100 not derived"
    grep -q "^K20m .*  borrowed$" "$T/out" || fail "K20m not borrowed"
    run devices A100-SXM4-80GB
    expect_rc 0
    expect_in out '"A100-SXM4-80GB"'
    expect_not_in out '"K20m"'
    run devices --table K20m
    expect_rc 0
    grep -q "^K20m  *13 " "$T/out" || fail "no K20m row with 13 SMs"
    run devices no-such-gpu
    expect_rc 2
    expect_in err '"code":"not_found"'
    expect_empty out
}

# Devices that users add (issue 9, item 2): a calibrated device made from the recorded
# H100 run is stored with --db, listed and marked stored, named in a request, served
# by a daemon started on that database; a built-in name, a stored name without
# --replace and a malformed description are refused with exit 2 and the JSON path.
case_devices_add() {
    db="$T/lab.sqlite"
    run calibrate --from-raw "$DATA/../../data/calibration/h100_raw.json" --name H100-cal
    expect_rc 0
    cp "$T/out" cal.json
    run devices add --db "$db" cal.json
    expect_rc 0
    expect_in out '"name":"H100-cal","replaced":false'
    expect_empty err
    # listed with --db beside the built-ins, each marked; without --db not there
    run devices --db "$db"
    expect_rc 0
    expect_in out '"name":"H100-cal","stored":true'
    expect_in out '"name":"K20m","stored":false'
    run devices --db "$db" --table
    expect_rc 0
    grep -q '^H100-cal  *132  *1\.980  *25\.00  *7633  *2973  measured  stored$' "$T/out" ||
        fail "no stored table row for H100-cal"
    grep -q '^K20m  *13  .*161  borrowed$' "$T/out" || fail "the K20m row changed"
    run devices --db "$db" h100-CAL
    expect_rc 0
    expect_in out '"dram_bw_gbs":2973'
    expect_in out '"stored":true'
    expect_in out 'launchrank calibrate on NVIDIA H100'
    expect_in out '"units":{'
    run devices
    expect_rc 0
    expect_not_in out 'H100-cal'
    # a request naming it: estimated with --db; without, an unknown device
    printf '%s' '{"device":"H100-cal","domain":[1024,1024],"launch":{"block":[128,1]},"kernel":{"fields":[{"name":"A","dims":[1024,1024],"loads":[["x","y"]]},{"name":"B","dims":[1024,1024],"stores":[["x","y"]]}]}}' >req.json
    run estimate --db "$db" req.json
    expect_rc 0
    expect_in out '"device":"H100-cal"'
    expect_in out '"predicted":'
    run estimate req.json
    expect_rc 2
    expect_in err '"path":"device"'
    # the same name again: refused, then replaced with --replace
    run devices add --db "$db" cal.json
    expect_rc 2
    expect_in err '"path":"name"'
    expect_in err '--replace'
    run devices add --db "$db" --replace cal.json
    expect_rc 0
    expect_in out '"replaced":true'
    # a built-in's name, in any case, is refused: a stored device never shadows one
    sed 's/"H100-cal"/"h100-SXM5-80GB"/' cal.json >builtin.json
    run devices add --db "$db" builtin.json
    expect_rc 2
    expect_in err '"code":"invalid_request"'
    expect_in err '"path":"name"'
    expect_in err 'built-in'
    # malformed descriptions: the path of the bad figure
    sed 's/"H100-cal"/"Bad1"/; s/"l1_sector_bytes":[[:space:]]*32/"l1_sector_bytes": 48/' \
        cal.json >bad1.json
    run devices add --db "$db" bad1.json
    expect_rc 2
    expect_in err '"path":"l1_sector_bytes"'
    sed 's/"H100-cal"/"Bad2"/; /"sm_count":/d' cal.json >bad2.json
    run devices add --db "$db" bad2.json
    expect_rc 2
    expect_in err '"path":"sm_count"'
    printf '%s' '{"base":"H100-SXM5-80GB","name":"Bad3","fits":{"miss_l1":{"a":0.5,"b":-1,"c":1}}}' >bad3.json
    run devices add --db "$db" bad3.json
    expect_rc 2
    expect_in err '"path":"fits.miss_l1.b"'
    printf '%s' '{"base":"H100-SXM5-80GB","dram_bw_gbs":3300}' >noname.json
    run devices add --db "$db" noname.json
    expect_rc 2
    expect_in err '"path":"name"'
    run devices --db "$db" --table
    expect_not_in out 'Bad'
    # "base" with overrides: stored with every figure, units dropped
    printf '%s' '{"base":"H100-SXM5-80GB","name":"H100-fast","dram_bw_gbs":3300,"units":{}}' >fast.json
    run devices add --db "$db" fast.json
    expect_rc 0
    run devices --db "$db" --table H100-fast
    expect_rc 0
    grep -q '^H100-fast  *132  *1\.980 .* 3300  measured  stored$' "$T/out" || fail "no row for H100-fast"
    # a daemon started on the database serves the stored devices
    if command -v curl >/dev/null 2>&1; then
        "$LR" serve --listen 127.0.0.1:0 --db "$db" --port-file port --threads 1 --quiet \
            2>serve.log &
        pid=$!
        i=0
        while [ ! -s port ] && [ $i -lt 300 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        url="http://127.0.0.1:$(cat port 2>/dev/null)"
        curl -s "$url/v1/devices" >list.json
        curl -s "$url/v1/devices/h100-cal" >one.json
        curl -s -H 'Content-Type: application/json' --data-binary @req.json \
            "$url/v1/estimate" >est.json
        kill "$pid"
        wait "$pid"
        last="launchrank serve --db (GET /v1/devices)"
        cp list.json "$T/out"
        expect_in out '"name":"H100-cal","stored":true'
        expect_in out '"name":"H100-fast","stored":true'
        cp one.json "$T/out"
        expect_in out '"dram_bw_gbs":2973'
        last="launchrank serve --db (POST /v1/estimate)"
        cp est.json "$T/out"
        expect_in out '"device":"H100-cal"'
    else
        echo "no curl: the daemon is not checked"
    fi
    # remove
    run devices remove --db "$db" H100-fast
    expect_rc 0
    run devices remove --db "$db" H100-fast
    expect_rc 2
    expect_in err '"code":"not_found"'
    run devices --db "$db" H100-fast
    expect_rc 2
}

case_estimate() {
    run estimate "$DATA/estimate_2d_5point.json"
    expect_rc 0
    expect_in out '"predicted"'
    expect_in out '"limiter"'
    [ "$(wc -l <"$T/out")" -eq 1 ] || fail "expected the response on one line"
    cp "$T/out" "$T/from_file"
    run_stdin "$DATA/estimate_2d_5point.json" estimate -
    expect_rc 0
    cmp -s "$T/out" "$T/from_file" || fail "stdin and file give different responses"
    run estimate --pretty "$DATA/estimate_2d_5point.json"
    expect_rc 0
    expect_in out '"predicted":'
    [ "$(wc -l <"$T/out")" -gt 10 ] || fail "expected --pretty to indent the response"
}

case_malformed() {
    run estimate "$DATA/malformed.json"
    expect_rc 2
    expect_in err '"code":"invalid_json"'
    expect_in err '{"error":{'
    expect_empty out
    run rank --top 3 "$DATA/malformed.json"
    expect_rc 2
    expect_in err '"code":"invalid_json"'
}

case_non_affine() {
    run estimate "$DATA/non_affine_load.json"
    expect_rc 2
    expect_in err '"path":"kernel.fields[0].loads[0][0]"'
    expect_in err '"code":"'
    expect_in err '"message":"'
    expect_empty out
}

case_rank() {
    run rank --table "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_in out "rank"
    expect_in out "GLup/s"
    expect_in out "B/Lup"
    expect_in out "limiter"
    grep -q '^ *1  *[0-9][0-9]*x[0-9][0-9]*x[0-9][0-9]* ' "$T/out" || fail "no row for rank 1"
    expect_in out "configurations evaluated"
    run rank "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_in out '"results"'
    expect_in out '"rank":1'
    # results[] holds top entries, one "launch" object each (the decision's tie group
    # names more ranks, without launch objects)
    run rank --top 1 --threads 2 "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_in out '"results":[{"rank":1,'
    [ "$(grep -o '"launch":{' "$T/out" | wc -l)" -eq 1 ] || fail "expected 1 result"
    run_stdin "$DATA/rank_2d_5point.json" rank --top=2 -
    expect_rc 0
    expect_in out '},{"rank":2,"block":'
    [ "$(grep -o '"launch":{' "$T/out" | wc -l)" -eq 2 ] || fail "expected 2 results"
    # 128 registers per thread: blocks of 1024 threads do not fit on an SM.
    run rank --table "$DATA/rank_with_an_unlaunchable_block.json"
    expect_rc 0
    expect_in out "2 configurations cannot be launched (all like block 1024x1x1, folding 1x1x1: no block of 1024 threads fits on an SM"
    expect_in out "; --all-unlaunchable lists each"
    expect_in out "6 configurations evaluated, 0 from cache"
    run rank --table --all-unlaunchable "$DATA/rank_with_an_unlaunchable_block.json"
    expect_rc 0
    expect_in out "2 configurations cannot be launched:"
    grep -q '^  1024x1x1  *1x1x1  *[a-z]' "$T/out" || fail "no reason for block 1024x1x1"
    grep -q '^  1024x1x1  *1x1x4  *[a-z]' "$T/out" || fail "no reason for block 1024x1x1 x4"
}

# Issue 46, item 3: --top K prints K rows and one line for the configurations that cannot
# be launched (12 here, for two reasons: 9 blocks too large for 128 registers per thread,
# 3 of 2048 threads), however many they are; --all-unlaunchable lists each; the JSON
# keeps every one.
case_rank_unlaunchable() {
    many="$DATA/rank_with_many_unlaunchable_blocks.json"
    run rank --help
    expect_in out "--all-unlaunchable"
    run rank --top 3 --table "$many"
    expect_rc 0
    [ "$(grep -c '^ *[0-9][0-9]*  *[0-9]*x[0-9]*x[0-9]* ' "$T/out")" -eq 3 ] ||
        fail "expected 3 ranked rows"
    [ "$(grep -c 'cannot be launched\|x1x1 .*fits on an SM\|exceed' "$T/out")" -eq 1 ] ||
        fail "expected one line for the configurations that cannot be launched"
    expect_in out "12 configurations cannot be launched (9 of them like block 1024x1x1, folding 1x1x1: no block of 1024 threads fits on an SM: 128 registers per thread need 131072 registers per block"
    expect_in out "18 configurations evaluated, 0 from cache"
    run rank --top 3 --table --all-unlaunchable "$many"
    expect_rc 0
    expect_in out "12 configurations cannot be launched:"
    [ "$(grep -c '^  [0-9]*x[0-9]*x[0-9]*  *[0-9]x1x1  *[a-z0-9]' "$T/out")" -eq 12 ] ||
        fail "expected 12 rows of configurations that cannot be launched"
    grep -q '^  32x32x2  *4x1x1  *[a-z0-9]' "$T/out" || fail "no row for block 32x32x2"
    run rank --top 3 "$many"
    expect_rc 0
    [ "$(grep -o '\],"reason":' "$T/out" | wc -l)" -eq 12 ] || fail "the JSON lists all 12"
}

# Issue 12, item 4: rank --time-limit SECONDS bounds the whole ranking. --help explains
# it with its unit; a value that is not a positive number of seconds is a usage error;
# a limit far below the ranking's time (111 configurations, seconds of work) answers
# exit 0 with what was evaluated, marked incomplete; one far above changes nothing.
case_time_limit() {
    jacobi="$DATA/../../protocol/data/jacobi_baseline.json"
    run rank --help
    expect_rc 0
    expect_in out "--time-limit SECONDS"
    expect_in out "wall-clock seconds the whole ranking"
    for bad in 0 -1 abc 1e9 nan ""; do
        run rank --time-limit "$bad" "$jacobi"
        expect_rc 2
        expect_in err "--time-limit: '$bad' is not a number of seconds above 0 and at most 86400"
        expect_empty out
    done
    run rank --time-limit
    expect_rc 2
    expect_in err "--time-limit needs a value (SECONDS)"
    # the shortest of these limits that evaluates anything (a loaded machine may need
    # more than the first); nothing evaluated is budget_exceeded, exit 2
    for limit in 0.005 0.01 0.02 0.05 0.1 0.2 0.4 0.8; do
        run rank --threads 1 --time-limit=$limit "$jacobi"
        [ "$rc" -eq 0 ] && break
        expect_rc 2
        expect_in err '"code":"budget_exceeded"'
    done
    expect_rc 0
    expect_in out '"incomplete":{"reason":"time_limit","evaluated":'
    expect_in out ',"of":111,"time_limit":'"$limit"',"message":'
    expect_in out 'configurations evaluated before the time limit: one of the other '
    n=$(sed 's/.*"incomplete":{"reason":"time_limit","evaluated":\([0-9]*\),.*/\1/' "$T/out")
    [ "$n" -ge 1 ] && [ "$n" -lt 111 ] || fail "evaluated $n, expected 1 to 110"
    [ "$(grep -o '"launch":{' "$T/out" | wc -l)" -eq "$n" ] || fail "expected $n results"
    # the table says so too, on top (the decision) and at the bottom (the counts)
    for limit in 0.005 0.01 0.02 0.05 0.1 0.2 0.4 0.8; do
        run rank --table --threads 1 --time-limit $limit "$jacobi"
        [ "$rc" -eq 0 ] && break
    done
    expect_rc 0
    expect_in out "incomplete: computed over the "
    expect_in out " of 111 configurations evaluated before the time limit ($limit s), 0 from cache"
    # T4 has no place for it: a warning on stderr
    for limit in 0.005 0.01 0.02 0.05 0.1 0.2 0.4 0.8; do
        run rank --format t4 --threads 1 --time-limit $limit "$jacobi"
        [ "$rc" -eq 0 ] && break
    done
    expect_rc 0
    expect_in err "warning: the ranking ran past its time limit of $limit s: "
    expect_in err "; the T4 results hold only those"
    run rank --time-limit 600 --top 3 "$DATA/rank_2d_5point.json"
    expect_rc 0
    cp "$T/out" limited.json
    run rank --top 3 "$DATA/rank_2d_5point.json"
    expect_rc 0
    cmp -s limited.json "$T/out" || fail "a limit not reached changed the answer"
    expect_not_in out '"incomplete"'
}

# Issue 11: the README's rank example, with its baseline, prints the decision on top of
# the table: the recommendation and why, the tie group, best/median/worst and the
# baseline's advice; every row has occupancy and idle threads and a mark.
case_readme_decision() {
    sed -n '/^```json$/,/^```$/p' "$DATA/../../../README.md" | sed '1d;$d' >readme.json
    grep -q '"baseline"' readme.json || fail "the README example has no baseline"
    run rank --table readme.json
    expect_rc 0
    head -1 "$T/out" | grep -q '^recommended: block [0-9]*x[0-9]*x[0-9]*, folding ' ||
        fail "the first line is not the recommendation"
    sed -n 2p "$T/out" | grep -q '^  why: one of [0-9]* configurations predicted within 8\.0 % of the best' ||
        fail "the second line does not say why"
    expect_in out "tie group (within 8.0 % of the best): "
    expect_in out "predicted GLup/s: best "
    grep -q '^baseline (rank [0-9]*, [0-9.]* GLup/s): keep the baseline 32x4x1, folding 1x1x1' "$T/out" ||
        fail "no baseline advice"
    expect_in out "occ  idle"
    grep -q '^ *1  .* R$\|^ *1  .* =$' "$T/out" || fail "rank 1 is neither recommended nor tied"
    expect_in out "(R: recommended, =: tied with the best, !: has warnings)"
}

# The progress line goes to a terminal on stderr and is blanked at the end; stdout
# keeps the bare JSON. Needs util-linux script(1) for the terminal; else skipped.
# Without a terminal: nothing, unless --progress (a line per percent, kept).
case_progress() {
    run rank --top 1 "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_not_in err "ranking:"
    run rank --progress --top 1 "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_in out '"rank":1'
    expect_not_in out "ranking:"
    [ "$(tail -n 1 "$T/err")" = "ranking: 21/21 configurations" ] ||
        fail "--progress does not end with the line 'ranking: 21/21 configurations'"
    [ "$(grep -c '^ranking: [0-9]*/21 configurations$' "$T/err")" -ge 2 ] ||
        fail "--progress wrote fewer than 2 whole progress lines"
    last="script"
    rc=0
    script -qc true /dev/null >/dev/null 2>&1 || exit 77
    script -qc "'$LR' rank --top 1 '$DATA/rank_2d_5point.json' >'$T/json'" "$T/tty" \
        >/dev/null 2>&1 </dev/null || rc=$?
    cp "$T/tty" "$T/err"
    cp "$T/json" "$T/out"
    expect_rc 0
    expect_in err "ranking: 21/21 configurations"
    expect_not_in out "ranking:"
    expect_in out '"rank":1'
    tail -c 200 "$T/tty" | tr '\r' '\n' | grep -q '^ \{20,\}$' || fail "the progress line is not blanked"
}

case_cache() {
    db="$T/cache.sqlite"
    run estimate --db "$db" "$DATA/estimate_2d_5point.json"
    expect_rc 0
    expect_not_in err "warning"
    run cache stats --db "$db"
    expect_rc 0
    grep -q '"predictions":[1-9]' "$T/out" || fail "expected at least one prediction"
    expect_in out '"size_bytes":'
    run cache export --db "$db"
    expect_rc 0
    [ -s "$T/out" ] || fail "expected the export to hold the prediction"
    run cache clear --db "$db"
    expect_rc 0
    grep -q '"removed_predictions":[1-9]' "$T/out" || fail "expected clear to remove some"
    run cache stats --db="$db"
    expect_rc 0
    expect_in out '"predictions":0'
    # A file that is not a database: cache commands fail, estimate goes on uncached.
    echo "not a database" >"$T/junk.sqlite"
    run cache stats --db "$T/junk.sqlite"
    expect_rc 1
    expect_in err '{"error":{'
    run estimate --db "$T/junk.sqlite" "$DATA/estimate_2d_5point.json"
    expect_rc 0
    expect_in err "warning: running without the cache"
    expect_in out '"predicted"'
    # The default database is launchrank.sqlite in the working directory.
    run cache stats
    expect_rc 1
    expect_in err "launchrank.sqlite"
}

# emit prints the CUDA source of the request's configuration; measure predicts and,
# with no GPU (CI), fails with code unavailable and exit 1 (not a bad request);
# rank --measure-top still ranks and says why nothing was timed.
case_gpu_commands() {
    run emit "$DATA/estimate_2d_5point.json"
    expect_rc 0
    expect_in out '__global__ void lr_kernel('
    expect_in out 'block (256, 1, 1)'
    expect_empty err
    run emit "$DATA/non_affine_load.json"
    expect_rc 2
    expect_in err '"code":"unsupported_expression"'
    run measure --help
    expect_rc 0
    expect_in out "Usage: launchrank measure"
    if [ -e /dev/nvidia0 ]; then
        echo "a GPU is present: the no-GPU answers are not checked"
        return 0
    fi
    run measure "$DATA/estimate_2d_5point.json"
    expect_rc 1
    expect_in err '"code":"unavailable"'
    # the GPU is looked for first: a kernel whose field layout alone would visit 2^30
    # lattice points (a floor division on a 1024^3 domain) is answered at once
    printf '%s' '{"device":"H100-SXM5-80GB","domain":[1024,1024,1024],"launch":{"block":[256,1,1]},"kernel":{"fields":[{"name":"a","dims":[1024,1024,1024],"loads":[["x/2","y","z"]]},{"name":"b","dims":[1024,1024,1024],"stores":[["x","y","z"]]}]}}' > big_nonaffine.json
    run measure big_nonaffine.json
    expect_rc 1
    expect_in err '"code":"unavailable"'
    # Issue 46, item 3: rank --measure-top without a GPU says so on stderr before the
    # ranking and exits 3 (rank --help); --allow-no-gpu keeps 0 for scripts
    run rank --help
    expect_in out "3 --measure-top"
    expect_in out "without a GPU to time on: stderr says so first"
    expect_in out "--allow-no-gpu"
    run rank --measure-top 2 --top 3 "$DATA/rank_2d_5point.json"
    expect_rc 3
    expect_in out '"measure":{"status":"unavailable"'
    expect_in err "launchrank rank: cannot measure: "
    expect_in err "; the ranking is predicted only (exit status 3; --allow-no-gpu makes it 0)"
    run rank --measure-top 2 --top 3 --table "$DATA/rank_2d_5point.json"
    expect_rc 3
    expect_in out "measurement unavailable"
    rc=0
    "$LR" rank --measure-top 2 --top 3 --table "$DATA/rank_2d_5point.json" >both 2>&1 || rc=$?
    last="launchrank rank --measure-top 2 --top 3 --table (stdout and stderr together)"
    cp both "$T/out"
    expect_rc 3
    head -n 1 both | grep -q "^launchrank rank: cannot measure: " ||
        fail "the first line is not the reason measuring cannot run"
    run rank --measure-top 2 --top 3 --allow-no-gpu --table "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_in out "measurement unavailable"
    expect_in err "cannot measure: "
    expect_in err "the ranking is predicted only (exit status 0)"
    # a request's own measure.top keeps exit 0 (the Python client's Local backend reads
    # measure.status), the reason still first on stderr
    sed 's/^{/{"measure":{"top":1},/' "$DATA/rank_2d_5point.json" >measure_in_request.json
    run rank --top 3 measure_in_request.json
    expect_rc 0
    expect_in out '"measure":{"status":"unavailable"'
    expect_in err "the ranking is predicted only (exit status 0)"
    run rank --top 3 --allow-no-gpu "$DATA/rank_2d_5point.json"
    expect_rc 0
    expect_empty err
    run rank --measure-top 99 "$DATA/rank_2d_5point.json"
    expect_rc 2
}

# Issue 43, item 2: `launchrank registers` compiles a source with NVRTC (no GPU) and
# prints ptxas's figures; its --help example runs as written; a request's kernel.source
# gives the estimate of the count it compiles to, byte for byte but the note. Skipped
# (77) where NVRTC cannot be loaded. The registers are nvcc 13.0.88's (-arch=sm_90
# -cubin -Xptxas -v of the same file): stencil7 22, heavy<64> 32.
case_registers() {
    root=$(cd "$DATA/../../.." && pwd)
    sample="$root/tests/data/registers_sample.cu"
    run registers --help
    expect_rc 0
    ex=$(sed -n '/^Examples:/{n;p;}' "$T/out" | sed 's/^ *\$ launchrank //')
    [ -n "$ex" ] || fail "no example in --help"
    # the example compiles kernel.cu: the sample, copied under that name
    mkdir -p "$T/ex" && cp "$sample" "$T/ex/kernel.cu"
    set -f
    set -- $ex
    set +f
    (cd "$T/ex" && "$LR" "$@") >"$T/out" 2>"$T/err" && rc=0 || rc=$?
    last="launchrank $ex (registers --help's example)"
    if [ "$rc" -eq 1 ] && grep -q 'NVRTC not found' "$T/err"; then
        echo "SKIP: NVRTC cannot be loaded"
        exit 77
    fi
    expect_rc 0
    expect_in out "compiled for sm_90 (H200-SXM-141GB) by NVRTC"
    grep -E -q '^stencil7 +22 regs +0 B +0 B +0 B +0 B +n/a$' "$T/out" ||
        fail "stencil7 is not 22 registers without spills"
    grep -E -q '^_Z5heavyILi64EEvPKfPf +32 regs +[1-9][0-9]* B +[1-9][0-9]* B +[1-9][0-9]* B +1024 B +n/a$' "$T/out" ||
        fail "heavy<64> is not 32 registers with spills and 1024 B of shared memory"

    run registers --arch sm_90 --json --kernel stencil7 "$sample"
    expect_rc 0
    expect_in out '"arch":"sm_90","device":null,'
    expect_in out '"kernels":[{"name":"stencil7","registers":22,"spill_store_bytes":0,"spill_load_bytes":0,"stack_bytes":0,"shared_bytes":0,"constant_bytes":null,"barriers":0,"instructions":{"fp32":0,"fp64":7,'
    expect_in out '"loops":0,"calls":0}]'
    # the mix counted in the PTX: what kernel.source sends as kernel.instructions
    mix=$(sed -n 's/.*"instructions":\({[^}]*}\).*/\1/p' "$T/out")
    [ -n "$mix" ] || fail "no instruction mix in registers --json"

    # --option reaches NVRTC, repeated (it once wrote its value over other options: a second
    # one failed, a first one was ignored and became --db's path)
    printf '#if K != 1 || J != 2\n#error K and J\n#endif\nextern "C" __global__ void k(float *a) { a[0] = K; }\n' >opt.cu
    run registers --arch sm_90 --option=-DK=1 --option -DJ=2 opt.cu
    expect_rc 0
    expect_in out 'compiled for sm_90'
    [ ! -e ./-DK=1 ] && [ ! -e ./-DJ=2 ] || fail "--option's value became a file"

    nv=$(sed -n 's/.*"nvrtc":"\([0-9]*\)\..*/\1/p' "$T/out")
    if [ "${nv:-0}" -ge 13 ]; then
        run registers --device V100-PCIe-32GB "$sample"
        expect_rc 1
        expect_in err '"code":"unavailable"'
        expect_in err "V100-PCIe-32GB is sm_70: NVRTC 13."
    fi
    run registers --arch sm_90 --kernel nothing "$sample"
    expect_rc 2
    expect_in err "the source has no kernel 'nothing'; it defines _Z5heavyILi64EEvPKfPf, stencil7"
    printf '__global__ void k( {}\n' >broken.cu
    run registers --arch sm_90 broken.cu
    expect_rc 2
    expect_in err 'could not compile it for sm_90: broken.cu(1): error'
    run registers broken.cu
    expect_rc 2
    expect_in err 'give --device NAME or --arch sm_XY'

    # kernel.source against kernel.registers 22 and the mix registers counted: the same
    # estimate but the note
    kernel='"fields":[{"name":"in","dims":[258,258,258],"loads":[["x","y","z"],["x-1","y","z"],["x+1","y","z"],["x","y-1","z"],["x","y+1","z"],["x","y","z-1"],["x","y","z+1"]]},{"name":"out","dims":[258,258,258],"stores":[["x","y","z"]]}]'
    head='{"device":"H200-SXM-141GB","domain":[256,256,256],"launch":{"block":[128,2,1]},"kernel":{'
    echo "$head$kernel,\"registers\":22,\"instructions\":$mix}}" >regs.json
    echo "$head$kernel,\"source\":{\"file\":\"$sample\",\"name\":\"stencil7\"}}}" >src.json
    run estimate regs.json
    expect_rc 0
    cp "$T/out" regs.out
    expect_in out '"warnings":[],'
    run estimate src.json
    expect_rc 0
    expect_in out '"warnings":[{"code":"registers_from_source","message":"kernel.registers = 22 and kernel.instructions = {fp32 0.0, fp64 7.0, '
    expect_in out 'counted statically in its PTX on the likely path'
    sed 's/"warnings":\[{"code":"registers_from_source","message":"[^"]*","path":"kernel.source"}\]/"warnings":[]/' "$T/out" >src.out
    cmp -s regs.out src.out || fail "kernel.source's estimate differs from kernel.registers 22's beyond the note"

    echo "$head$kernel,\"registers\":40,\"source\":{\"file\":\"$sample\",\"name\":\"stencil7\"}}}" >both.json
    run estimate both.json
    expect_rc 2
    expect_in err 'kernel.registers is 40 but kernel.source compiles to 22 registers per thread'
    expect_in err '"path":"kernel.registers"'
    echo "$head$kernel,\"source\":{\"file\":\"$sample\",\"name\":\"heavy2\"}}}" >name.json
    run estimate name.json
    expect_rc 2
    expect_in err '"path":"kernel.source.name"'
    echo "$head$kernel,\"source\":{\"text\":\"__global__ void k( {}\"}}}" >syntax.json
    run estimate syntax.json
    expect_rc 2
    expect_in err '"path":"kernel.source.text"'
    expect_in err 'kernel.cu(1): error'
    if [ "${nv:-0}" -ge 13 ]; then
        sed 's/H200-SXM-141GB/V100-PCIe-32GB/' src.json >v100.json
        run estimate v100.json
        expect_rc 1
        expect_in err '"code":"unavailable"'
        expect_in err 'send kernel.registers instead'
        expect_in err '"path":"kernel.source"'
    fi
}

# Issue 46, item 7: docs/pystencils.md's count of configurations tied with the best is
# the tie group the CLI (and the daemon, in the page's own example) gives its request.
case_docs_pystencils() {
    doc="$DATA/../../../docs/pystencils.md"
    run rank --table "$DATA/../../../docs/pystencils/linear3d_rank.json"
    expect_rc 0
    n=$(sed -n 's/^tie group (within [0-9.]* % of the best): \([0-9]*\) configurations.*/\1/p' "$T/out")
    [ -n "$n" ] || fail "no tie group in the table"
    grep -q "indices); $n of them are predicted within the H100's precision" "$doc" ||
        fail "docs/pystencils.md does not say $n configurations are tied with the best"
    grep -q "\"reason\": \"one of $n configurations predicted within" "$doc" ||
        fail "docs/pystencils.md's example answer does not say $n either"
}

# Issue 46, item 1: the README's quick start, as a newcomer follows it: the web
# calculator's address, the daemon in the foreground with curl in a second terminal,
# a first request of the default model (no "model" in it) shown indented, the test
# command's duration; and each of its command-line examples runs as written.
case_readme_quick_start() {
    readme="$DATA/../../../README.md"
    root="$DATA/../../.."
    sed -n '/^## Quick start/,/^## Use/p' "$readme" >quick.md
    [ -s quick.md ] || { last="README.md"; fail "no '## Quick start' section"; }
    for want in "http://127.0.0.1:8080/" "In a second terminal" "foreground" \
        "--data-binary @docs/examples/stencil2d.json" "| python3 -m json.tool" \
        "about 7 minutes" "build-test/build.log"; do
        grep -q -F -e "$want" quick.md || { last="README.md"; fail "the quick start lacks '$want'"; }
    done
    if grep -q '"model"' "$root/docs/examples/stencil2d.json"; then
        last="docs/examples/stencil2d.json"
        fail "the first example names a model: it should show the default"
    fi
    n=0
    while read -r cmd; do
        n=$((n + 1))
        # "build-release/clients/cli/launchrank ARGS": ARGS as written, from the root
        set -f
        set -- ${cmd#build-release/clients/cli/launchrank }
        set +f
        (cd "$root" && "$LR" "$@") >"$T/out" 2>"$T/err" && rc=0 || rc=$?
        last="$cmd (README.md)"
        expect_rc 0
    done <<EOF2
$(sed -n 's/^    \(build-release\/clients\/cli\/launchrank .*\)$/\1/p' quick.md)
EOF2
    [ "$n" -eq 3 ] || { last="README.md"; fail "expected 3 command-line examples, found $n"; }
    (cd "$root" && "$LR" estimate --pretty docs/examples/stencil2d.json) >"$T/out" 2>"$T/err"
    rc=$?
    last="launchrank estimate --pretty docs/examples/stencil2d.json"
    expect_rc 0
    expect_in out '"model":	"v2"'
    # its one warning says that registers were assumed (issue 43), nothing else
    expect_in out '"code":	"registers_assumed"'
    [ "$(grep -c '"code":' "$T/out")" -eq 1 ] || fail "expected registers_assumed only"
    (cd "$root" && "$LR" rank --table --top 5 docs/examples/stencil2d.json) >"$T/out" 2>"$T/err"
    rc=$?
    last="launchrank rank --table --top 5 docs/examples/stencil2d.json"
    expect_rc 0
    [ "$(grep -c '^ *[0-9][0-9]*  *[0-9]*x[0-9]*x[0-9]* ' "$T/out")" -eq 5 ] ||
        fail "expected 5 ranked rows"
}

case_calibrate() {
    run calibrate --help
    expect_rc 0
    expect_in out "Usage: launchrank calibrate"
    expect_in out "Example"
    expect_in out "Exit status"
    # Issue 46, item 7: both helps count the fitted parameters alike (the analysis below
    # prints the count from the code); --quick takes the same time everywhere
    expect_in out "fits the ten free model-v2 parameters (eleven more are held)"
    expect_not_in out "20 s"
    [ "$(grep -c 'about 30 s' "$T/out")" -eq 2 ] || fail "--quick is about 30 s in both places"
    run fit --help
    expect_in out "Refits the ten free model-v2 parameters (eleven more are held)"
    grep -q 'about 30 s with `--quick`' "$DATA/../../../README.md" ||
        fail "README.md does not say --quick takes about 30 s"
    grep -q '`--quick` about 30 s' "$DATA/../../../docs/calibration.md" ||
        fail "docs/calibration.md does not say --quick takes about 30 s"
    run calibrate --no-such-option
    expect_rc 2
    expect_in err "calibrate --help"
    run calibrate --from-raw "$DATA/../../data/calibration/h100_raw.json" --quick
    expect_rc 2
    # the recorded H100 run (tests/data/calibration/h100_raw.json, 184 timings) gives
    # the driver's figures and 2973 GB/s from its fastest streaming copy (92.9 GLup/s
    # x 32 B): exactly, since the analysis is deterministic
    run calibrate --from-raw "$DATA/../../data/calibration/h100_raw.json" --name H100-cal
    expect_rc 0
    expect_in out '"name":	"H100-cal"'
    expect_in out '"sm_count":	132'
    expect_in out '"l2_bytes":	26214400'
    expect_in out '"dram_bw_gbs":	2973'
    expect_in out '"provenance":	"measured"'
    expect_in out '"sources":'
    # the shared memory unit from the compute capability (9.0: 128 B), so that the
    # description answers without the warning shared_alloc_unknown
    expect_in out '"shared_alloc_bytes":	128'
    expect_in err "attainable bandwidths: DRAM 2973 GB/s"
    expect_in err "with the parameters fitted here:"
    # Issue 46, item 7: calibrate and fit say the same count of fitted parameters, the
    # one they fit (CAL_NPARAMS less the EST_HELD rows of estimator/params.def), and
    # --quick's time agrees in --help, the README and docs/calibration.md
    expect_in err "fitted (10): "
    expect_in err "held (11; estimator/params.def, kind EST_HELD): "
    # (the help texts' count and --quick's time: at the top of this case)
    # the description is a device a request accepts, as it is
    {
        printf '{"device":'
        cat "$T/out"
        printf ',"domain":[1024,1024],"launch":{"block":[128,1]},"kernel":{"fields":['
        printf '{"name":"A","dims":[1024,1024],"loads":[["x","y"]]},'
        printf '{"name":"B","dims":[1024,1024],"stores":[["x","y"]]}]}}'
    } > req.json
    run estimate req.json
    expect_rc 0
    expect_in out '"device":"H100-cal"'
    # a run recorded with the size scans (H100, 2026-11-23): the launch overhead is
    # measured, the median of 7 scans (lab/2026-11-23-overhead measured 6.18 us the same way)
    run calibrate --from-raw "$DATA/../../data/calibration/h100_scans_raw.json" --name H100-scans
    expect_rc 0
    expect_in out '"launch_overhead_us":	6.11'
    expect_in err "launch overhead: 6.11 us, the median of 7 size scans (4.80 to 7.99 us)"
    expect_in out 'the median, over 7 size scans of three kernels'
    # one without them keeps the base's figure and says so
    run calibrate --from-raw "$DATA/../../data/calibration/h100_raw.json" --name H100-cal
    expect_rc 0
    expect_in out '"launch_overhead_us":	6.2'
    # the built-in H200 is what calibrate makes of the recorded H200 run, with its own
    # launch overhead (measured by lab/2026-11-23-overhead, taken from the base device)
    run calibrate --from-raw "$DATA/../../data/calibration/h200_raw.json" --name H200-SXM-141GB \
        --base H200-SXM-141GB
    expect_rc 0
    cp "$T/out" h200.json
    run devices H200-SXM-141GB
    expect_rc 0
    for k in sm_count l2_bytes clock_ghz shared_reserved_bytes_per_block dram_bw_gbs l2_bw_gbs \
        block_rate_per_sm latency_ns \
        fold_overlap block_granularity limit_sharpness dram_efficiency l2_efficiency \
        l1_efficiency store_requests_per_ns store_sectors_per_ns dram_overload_bytes_per_sm \
        dram_streams_half partial_sectors_half partial_sector_ns launch_overhead_us \
        l2_requests_per_ns; do
        # the first occurrence: units and sources repeat the names
        a=$(tr -d ' \t\n' < h200.json | sed 's/"units".*//;s/"sources".*//' |
            sed -n "s/.*\"$k\":\([^,}]*\).*/\1/p")
        b=$(tr -d ' \t\n' < "$T/out" | sed 's/"units".*//;s/"sources".*//' |
            sed -n "s/.*\"$k\":\([^,}]*\).*/\1/p")
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "$k: calibrate gives '$a', the built-in has '$b'"
    done
    # issue 43, item 3: a record with the instruction rates (H200, 2026-11-29) sets them,
    # whatever the base gives (the A100's fp32 and fp64 lanes are half the H200's), and
    # says how in sources; one without them keeps the base's (the H100-cal run above)
    run calibrate --from-raw "$DATA/../../data/calibration/h200_rates_raw.json" --name H200-rates \
        --base A100-SXM4-40GB
    expect_rc 0
    expect_in out '"fp32_lanes":	128'
    expect_in out '"fp64_lanes":	64'
    expect_in out '"special_lanes":	16'
    expect_in out '"integer_lanes":	64'
    expect_in out '"issue_lanes":	128'
    expect_in out '"fp32_lanes,fp64_lanes,special_lanes,integer_lanes,issue_lanes":	"measured by launchrank calibrate on NVIDIA H200, CUDA driver 13.0, 2026-11-29'
    expect_in err "fp64     DFMA chains                                63.8      1.980  fp64_lanes 64"
    run calibrate --from-raw "$DATA/../../data/calibration/h100_raw.json" --name H100-cal \
        --base A100-SXM4-40GB
    expect_rc 0
    expect_in out '"fp32_lanes":	64'
    expect_not_in out 'measured by launchrank calibrate on NVIDIA H100, CUDA driver 13.0, 2026-11-22 (docs'
    # a broken record names what is wrong
    printf '{"format":"launchrank-calibration-raw-1","date":"x","gpu":{"name":"G"},"runs":[{"family":"nope","block":[1,1,1],"folding":[1,1,1],"glups":1}]}' > bad.json
    run calibrate --from-raw bad.json
    expect_rc 2
    expect_in err '"path":"runs[0]"'
    printf '{"format":"something else"}' > other.json
    run calibrate --from-raw other.json
    expect_rc 2
    expect_in err '"path":"format"'
    if [ -e /dev/nvidia0 ]; then
        echo "a GPU is present: the no-GPU answer is not checked"
        return 0
    fi
    run calibrate --quick
    expect_rc 1
    expect_in err '"code":"unavailable"'
}

# issue 45, item 6: a mesh kernel against the order of its cells, with the levels named
case_levels() {
    mesh="$DATA/../../data/langguth_fv_mesh_h200.json"
    run levels "$mesh"
    expect_rc 0
    expect_in out "diag. block"
    expect_in out "GLup/s"
    expect_in out " memory"
    expect_in out " random"
    expect_in out "your mesh"
    expect_in err "diagonal blocks of 32 cells"
    run levels "$DATA/estimate_2d_5point.json"
    expect_rc 2
    expect_in err "reads through an index field"
}

case "$CASE" in
levels) case_levels ;;
help) case_help ;;
bad_usage) case_bad_usage ;;
unreadable_file) case_unreadable_file ;;
too_large) case_too_large ;;
devices) case_devices ;;
devices_add) case_devices_add ;;
estimate) case_estimate ;;
malformed) case_malformed ;;
non_affine) case_non_affine ;;
rank) case_rank ;;
rank_unlaunchable) case_rank_unlaunchable ;;
time_limit) case_time_limit ;;
readme_decision) case_readme_decision ;;
progress) case_progress ;;
cache) case_cache ;;
gpu_commands) case_gpu_commands ;;
calibrate) case_calibrate ;;
docs_pystencils) case_docs_pystencils ;;
registers) case_registers ;;
readme_quick_start) case_readme_quick_start ;;
*)
    echo "cli_cases.sh: unknown case '$CASE'"
    exit 1
    ;;
esac
exit 0
