#!/bin/bash
# fastpath.sh - the rows the fast path is judged by, natively and under
# each vkernel variant in one run, as ratios to native: a getpid round
# trip, open+close, stat, a 10,000-entry getdents64 listing, fork+exec+
# wait, a busybox shell loop, `find /usr -name '*.h' | wc -l` and, with
# SELFBUILD=1, vkernel building itself (meson setup + ninja -j1).  Each
# cell is the median of N runs, the columns taken in turn so that the
# machine's drift touches them alike.
#
# Usage: bench/fastpath.sh [VKERNEL [N]] [OUTFILE.md]
# Environment:
#   VARIANTS  "LABEL=OPTIONS;..." of "vkernel run" (default
#             "ptrace=--platform=ptrace;systrap=--platform=systrap")
#   SELFBUILD 1 adds the self-build row (minutes natively)
#   BUILD_JOBS ninja's -j for that row (default 1)
#   SHELL_LOOPS=100, BENCH_CC
# The in-guest rows time themselves (start-up excluded); shell, find and
# the build are wall times from outside, start-up included.  getpid,
# open+close and stat are made at sites of libc's wrappers' shape, "mov
# $NR, %eax; syscall" (micro/sitecall.c), which systrap patches;
# bench/systrap.sh also has the trapped shape.
set -u
NAME=fastpath
N=5
. "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
SELFBUILD=${SELFBUILD:-0}
JOBS=${BUILD_JOBS:-1}
LOOPS=${SHELL_LOOPS:-100}
CC=${BENCH_CC:-$(command -v musl-gcc || command -v gcc)}
command -v busybox >/dev/null || { echo "fastpath.sh: needs busybox" >&2; exit 1; }
work=$(mktemp -d /tmp/vk-bench-fastpath.XXXXXX)
trap 'rm -rf "$work"' EXIT

for p in sitecall getdents forkexec true_static; do
	"$CC" -static -O2 -std=c17 -Wall -Wextra -Wno-unused-parameter \
	    -o "$work/$p" "$HERE/micro/$p.c" || exit 1
done
mkdir "$work/dir"
(cd "$work/dir" && seq 10000 | xargs touch)

rows=(getpid openclose stat getdents forkexec shell find)
[ "$SELFBUILD" = 1 ] && rows+=(build)
declare -A label target
while IFS=: read -r r l t; do
	label[$r]=${l//JOBS/$JOBS}
	target[$r]=$t
done <<'EOF2'
getpid:getpid, ns per call:1.5
openclose:open+close, ns per pair:4
stat:stat, ns per call:4
getdents:getdents64 of 10,000 entries, ns per listing:2
forkexec:fork+exec+wait, ns each:2
shell:busybox sh loop, ns per loop:2
find:find /usr -name '*.h' | wc -l, ns:2
build:meson setup + ninja -jJOBS of this tree, ns:1.3
EOF2

# The command line of row r: the guest program and its arguments.
guest_cmd() {
	case $1 in
	getpid) echo "$work/sitecall getpid 100000" ;;
	openclose) echo "$work/sitecall openclose 20000" ;;
	stat) echo "$work/sitecall stat 20000" ;;
	getdents) echo "$work/getdents $work/dir 20" ;;
	forkexec) echo "$work/forkexec 200 $work/true_static" ;;
	esac
}

# ns of one run of row r in column c, or FAILED.
one() {
	local r=$1 c=$2 pre=() t0 t1 out
	if [ "$c" != native ]; then
		read -r -a o <<< "${opts[$c]}"
		pre=("$VK" run "${o[@]}")
		[ "$r" = build ] && pre=("$VK" run "${o[@]}" --bind "$work/src:$work/src:rw")
		pre+=(--)
	fi
	case $r in
	shell|find|build)
		t0=$(date +%s%N)
		case $r in
		shell) out=$("${pre[@]}" busybox sh "$HERE/shellwork.sh" "$LOOPS" /tmp "$work/true_static" 2>&1 && echo ok) ;;
		find) out=$("${pre[@]}" sh -c "find /usr -name '*.h' 2>/dev/null | wc -l") ;;
		build) out=$("${pre[@]}" sh -c "cd $work/src && rm -rf b && meson setup b >/dev/null && ninja -C b -j$JOBS >/dev/null && echo ok" 2>&1) ;;
		esac
		t1=$(date +%s%N)
		case $r in
		shell|build) [ "${out##*$'\n'}" = ok ] || { echo FAILED; return; } ;;
		find) echo "$out" > "$work/count.$c" ;;
		esac
		local d=$((t1 - t0))
		[ "$r" = shell ] && d=$((d / LOOPS))
		echo "$d" ;;
	*)
		"${pre[@]}" $(guest_cmd "$r") 2>/dev/null |
		    sed -n 's/.* iters, \([0-9.]*\) ns\/op.*/\1/p' | grep . ||
		    echo FAILED ;;
	esac
}

if [ "$SELFBUILD" = 1 ]; then
	git -C "$ROOT" archive HEAD | (mkdir "$work/src" && tar -x -C "$work/src")
fi
for _ in $(seq "$N"); do
	for r in "${rows[@]}"; do
		for c in "${cols[@]}"; do
			one "$r" "$c" >> "$work/$r.$c"
		done
	done
done

table=$(
	variants_head row | sed '1s/$/ target |/; 2s/$/---|/'
	for r in "${rows[@]}"; do
		b=$(med < "$work/$r.native")
		line="| ${label[$r]//|/\\|} | $b |"
		for c in "${cols[@]:1}"; do
			m=$(med < "$work/$r.$c")
			x=$(awk -v m="$m" -v b="$b" -v t="${target[$r]}" 'BEGIN {
				if (m + 0 > 0 && b + 0 > 0) {
					r = m / b
					printf "%.2fx%s", r, r <= t ? "" : " (no)"
				} else print "-" }')
			[ "$r" = find ] && ! cmp -s "$work/count.native" "$work/count.$c" && x="$x, count differs"
			line+=" $m | $x |"
		done
		echo "$line ≤ ${target[$r]}x |"
	done
)
echo "$table"
variants_report "fast-path rows" "VARIANTS='$VARIANTS' SELFBUILD=$SELFBUILD" "$table"
