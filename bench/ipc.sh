#!/bin/bash
# ipc.sh - System V semaphore ping-pong between two processes against the
# guest's futex ping-pong between two threads, and between two processes
# on a shared word, natively and inside vkernel in one run (micro
# programs timing themselves in the guest).
# The target: inside vkernel, a semaphore round trip costs at most twice
# a futex round trip.
#
# Usage: bench/ipc.sh [VKERNEL] [OUTFILE]
#   OUTFILE  if given, a dated section with the table is appended to it
# Environment: BENCH_TARGET_MS=1000 (see micro/bench.h).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VK=${1:-$HERE/../build/host-linux/vkernel}
OUT=${2:-}
work=$(mktemp -d /tmp/vk-bench-ipc.XXXXXX)
trap 'rm -rf "$work"' EXIT

die() { echo "ipc.sh: $*" >&2; exit 1; }
[ -x "$VK" ] || die "no vkernel at $VK"

CC=${BENCH_CC:-$(command -v musl-gcc || command -v gcc)}
for p in futex_pingpong futex_procpong sem_pingpong; do
	"$CC" -static -O2 -std=c17 -pthread -Wall -Wextra -Wno-unused-parameter \
	    -o "$work/$p" "$HERE/micro/$p.c" || die "cannot build $p"
done

# ns/op from a micro program's "NAME: N iters, X ns/op" line.
nsop() { "$@" 2>/dev/null | sed -n 's/.* \([0-9.]*\) ns\/op.*/\1/p'; }
us() { awk -v x="$1" 'BEGIN { if (x == "") print "FAILED"; else printf "%.1f us", x / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == 0) print "–"; else printf "%.2fx", b / a }'; }

fp_n=$(nsop "$work/futex_pingpong"); fp_v=$(nsop "$VK" run -- "$work/futex_pingpong")
pp_n=$(nsop "$work/futex_procpong"); pp_v=$(nsop "$VK" run -- "$work/futex_procpong")
sp_n=$(nsop "$work/sem_pingpong"); sp_v=$(nsop "$VK" run -- "$work/sem_pingpong")
r_v=$(ratio "$fp_v" "$sp_v")
met=$(awk -v r="${r_v%x}" 'BEGIN { if (r == "–") print "–"; else print (r + 0 <= 2 ? "yes" : "**no**") }')
table=$(cat <<T
| round trip | native | vkernel | vkernel/native |
|---|---:|---:|---:|
| futex ping-pong, two threads | $(us "$fp_n") | $(us "$fp_v") | $(ratio "$fp_n" "$fp_v") |
| futex ping-pong, two processes | $(us "$pp_n") | $(us "$pp_v") | $(ratio "$pp_n" "$pp_v") |
| SysV semaphore ping-pong, two processes | $(us "$sp_n") | $(us "$sp_v") | $(ratio "$sp_n" "$sp_v") |

Inside vkernel the semaphore round trip costs $r_v the threads' futex
one (target ≤ 2x: $met) and $(ratio "$pp_v" "$sp_v") the processes' futex one.
T
)
echo "$table"
if [ -n "$OUT" ]; then
	{
		echo
		echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC'): SysV IPC"
		echo
		echo "Command: \`bench/ipc.sh $VK $OUT\` ($(nproc) CPUs, $(uname -r))"
		echo
		echo "$table"
	} >> "$OUT"
fi
