#!/bin/bash
# bench/fuzz.sh BUILD-FUZZ SECONDS [RESULTS.md]
#
# The fuzz harness's speed and reach: fuzz_syscalls runs SECONDS from a
# copy of the committed corpus on one core, then the corpus it grew is
# replayed by the coverage build (fuzz_syscalls_cov) and llvm-cov counts
# the lines of vkern/ it ran (the generated syscall table left out).
# Prints a Markdown section, and appends it to RESULTS.md when given.
# An input that crashes the harness is left in BUILD-FUZZ (crash-...).
# Needs a build set up with -Dfuzz=true, and llvm (llvm-profdata,
# llvm-cov) of the clang that built it.
set -euo pipefail
build=$1 secs=$2 results=${3:-}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ninja -C "$build" tests/fuzz/fuzz_syscalls tests/fuzz/fuzz_syscalls_cov \
	>/dev/null
cp -r "$src/tests/fuzz/corpus" "$work/corpus"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
# One core: taskset keeps the harness there, and the CPU time it got is
# what execs per CPU second count, whatever else the host runs.
/usr/bin/time -f '%U %S' -o "$work/time" taskset -c 0 \
	"$build/tests/fuzz/fuzz_syscalls" "$work/corpus" \
	-dict="$src/tests/fuzz/fuzz_syscalls.dict" -max_total_time="$secs" \
	-timeout=25 -print_final_stats=1 -artifact_prefix="$build/" \
	>"$work/log" 2>&1 || { grep -v '^vkernel: ' "$work/log" | tail -40;
	    exit 1; }
wall=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cpu=$(awk '{ print $1 + $2 }' "$work/time")
LLVM_PROFILE_FILE="$work/cov.profraw" \
	"$build/tests/fuzz/fuzz_syscalls_cov" -runs=0 "$work/corpus" \
	>/dev/null 2>&1
llvm-profdata merge -o "$work/cov.profdata" "$work/cov.profraw"
cov=$(cd "$build" && llvm-cov report tests/fuzz/fuzz_syscalls_cov \
	-instr-profile="$work/cov.profdata" 2>/dev/null |
	awk '$1 ~ /^vkern\// { n += $8; miss += $9 }
	    END { printf "%d of %d lines, %.1f%%", n - miss, n,
	    100 * (n - miss) / n }')
{
	echo
	echo "## fuzz_syscalls, $(date -u '+%Y-%m-%d %H:%M:%S') UTC"
	echo
	echo "- command: \`bench/fuzz.sh $build $secs${results:+ $results}\`"
	echo "- host: nproc $(nproc), loadavg before $load0, after" \
	    "$(cut -d' ' -f1-3 /proc/loadavg); tree" \
	    "$(git -C "$src" rev-parse --short HEAD)"
	echo "- $execs executions in $wall s wall, $cpu s CPU on one core:" \
	    "$(awk -v e="$execs" -v c="$cpu" 'BEGIN { printf "%d", e / c }')" \
	    "execs per CPU second (target ≥ 5,000)," \
	    "$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%d", e / w }')" \
	    "per wall second"
	echo "- corpus: $(ls "$src/tests/fuzz/corpus" | wc -l) committed" \
	    "inputs grew to $(ls "$work/corpus" | wc -l)"
	echo "- vkern/ line coverage of that corpus (llvm-cov):" \
	    "$cov (target ≥ 60% after 10 minutes)"
} | tee -a "${results:-/dev/null}"
