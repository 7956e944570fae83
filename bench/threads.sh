#!/bin/bash
# threads.sh - the thread benchmarks, vkernel next to native in one run:
# thread create+join and a futex ping-pong between two threads (micro
# programs timing themselves inside the guest), and wall times of
# python3 -c pass and make -j2 of a 7-file C project (median of RUNS).
#
# Usage: bench/threads.sh [VKERNEL] [OUTFILE]
#   OUTFILE  if given, a dated section with the table is appended to it
# Environment: RUNS=5, BENCH_TARGET_MS=1000 (see micro/bench.h),
#   PYTHON (default /usr/bin/python3).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VK=${1:-$HERE/../build/host-linux/vkernel}
OUT=${2:-}
RUNS=${RUNS:-5}
# The system's python3: a version manager's shim would time a shell script.
PY=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3)}
work=$(mktemp -d /tmp/vk-bench-threads.XXXXXX)
trap 'rm -rf "$work"' EXIT

die() { echo "threads.sh: $*" >&2; exit 1; }
[ -x "$VK" ] || die "no vkernel at $VK"

CC=${BENCH_CC:-$(command -v musl-gcc || command -v gcc)}
for p in thread_create futex_pingpong; do
	"$CC" -static -O2 -std=c17 -pthread -Wall -Wextra -Wno-unused-parameter \
	    -o "$work/$p" "$HERE/micro/$p.c" || die "cannot build $p"
done

# ns/op from a micro program's "NAME: N iters, X ns/op" line.
nsop() { "$@" 2>/dev/null | sed -n 's/.* \([0-9.]*\) ns\/op.*/\1/p'; }

# Median wall seconds of RUNS runs of a command.
wall() {
	for _ in $(seq "$RUNS"); do
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo FAILED; return; }
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

mkproj() {
	mkdir -p "$work/src"
	for i in 1 2 3 4 5 6; do
		printf 'int f%d(void) { return %d; }\n' "$i" "$i" > "$work/src/f$i.c"
	done
	printf '#include <stdio.h>\nint f1(void), f2(void), f3(void), f4(void), f5(void), f6(void);\nint main(void) { printf("%%d\\n", f1() + f2() + f3() + f4() + f5() + f6()); return 0; }\n' > "$work/src/main.c"
	printf 'OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O1 -c $< -o $@\n' > "$work/src/Makefile"
}
mkproj
make_cmd="rm -rf /tmp/vk-bench-mk && cp -r $work/src /tmp/vk-bench-mk && make -s -C /tmp/vk-bench-mk -j2"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "FAILED" || b == "FAILED" || a == 0) print "–"; else printf "%.2fx", b / a }'; }
met() { awk -v r="${1%x}" -v t="$2" 'BEGIN { if (r == "–") print "–"; else print (r + 0 <= t ? "yes" : "**no**") }'; }

tc_n=$(nsop "$work/thread_create"); tc_v=$(nsop "$VK" run -- "$work/thread_create")
fp_n=$(nsop "$work/futex_pingpong"); fp_v=$(nsop "$VK" run -- "$work/futex_pingpong")
py_n=$(wall "$PY" -c pass); py_v=$(wall "$VK" run -- "$PY" -c pass)
mk_n=$(wall bash -c "$make_cmd"); mk_v=$(wall "$VK" run -- bash -c "$make_cmd")
rm -rf /tmp/vk-bench-mk

us() { awk -v x="$1" -v d="$2" 'BEGIN { if (x == "" || x == "FAILED") print "FAILED"; else printf "%.1f us", x / d }'; }
ms() { awk -v x="$1" 'BEGIN { if (x == "" || x == "FAILED") print "FAILED"; else printf "%.1f ms", x / 1000 }'; }
r_tc=$(ratio "$tc_n" "$tc_v"); r_py=$(ratio "$py_n" "$py_v"); r_mk=$(ratio "$mk_n" "$mk_v")
fp_met=$(awk -v v="$fp_v" 'BEGIN { if (v == "") print "–"; else print (v / 1000 <= 40 ? "yes" : "**no**") }')
table=$(cat <<T
| threads | native | vkernel | vkernel/native | target | met |
|---|---:|---:|---:|---|---|
| thread create + join, per pair | $(us "$tc_n" 1000) | $(us "$tc_v" 1000) | $r_tc | vkernel ≤ 4x native | $(met "$r_tc" 4) |
| futex ping-pong between two threads, per round trip | $(us "$fp_n" 1000) | $(us "$fp_v" 1000) | $(ratio "$fp_n" "$fp_v") | vkernel ≤ 40 us | $fp_met |
| python3 -c pass, wall (median of $RUNS) | $(ms "$py_n") | $(ms "$py_v") | $r_py | vkernel ≤ 3x native | $(met "$r_py" 3) |
| make -j2 of a 7-file C project, wall (median of $RUNS) | $(ms "$mk_n") | $(ms "$mk_v") | $r_mk | vkernel ≤ 3x native | $(met "$r_mk" 3) |
T
)
echo "$table"
if [ -n "$OUT" ]; then
	{
		echo
		echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC'): threads"
		echo
		echo "Command: \`bench/threads.sh $VK $OUT\` ($(nproc) CPUs, $(uname -r))"
		echo
		echo "$table"
	} >> "$OUT"
fi
