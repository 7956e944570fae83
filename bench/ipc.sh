#!/bin/bash
# ipc.sh - System V semaphore ping-pong between two processes against the
# guest's futex ping-pong between two threads, and between two processes
# on a shared word, natively and inside vkernel in one run (micro
# programs timing themselves in the guest).
# The target: inside vkernel, a semaphore round trip costs at most twice
# a futex round trip.
#
# Usage: [OLD=VKERNEL] [RUNS=N] bench/ipc.sh [VKERNEL] [OUTFILE]
#   OUTFILE  if given, a dated section with the table is appended to it
#   OLD      another vkernel build, timed in the same run beside VKERNEL
#   RUNS     runs of each program (default 1), all taken in turn so that
#            the machine's drift touches each alike; the median is shown
# Environment: BENCH_TARGET_MS=1000 (see micro/bench.h).
set -u
NAME=ipc
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
RUNS=${RUNS:-1}
OLD=${OLD:-}
[ -z "$OLD" ] || [ -x "$OLD" ] || die "no vkernel at $OLD"
BENCH_ENV="${OLD:+OLD=$OLD }RUNS=$RUNS "
progs="futex_pingpong futex_procpong sem_pingpong"
bench_build $progs

# One ns/op per run of each program under each of native, old and new.
for _ in $(seq "$RUNS"); do
	for p in $progs; do
		echo "native $p $(nsop "$work/$p")"
		[ -z "$OLD" ] || echo "old $p $(nsop "$OLD" run -- "$work/$p")"
		echo "new $p $(nsop "$VK" run -- "$work/$p")"
	done
done > "$work/runs"
# med WHO PROG: the median ns/op.
med() {
	awk -v w="$1" -v p="$2" '$1 == w && $2 == p && $3 != "" { print $3 }' \
	    "$work/runs" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'
}
row() {
	local n v o
	n=$(med native "$2"); v=$(med new "$2")
	if [ -n "$OLD" ]; then
		o=$(med old "$2")
		echo "| $1 | $(us "$n") | $(us "$o") ($(ratio "$n" "$o")) | $(us "$v") ($(ratio "$n" "$v")) |"
	else
		echo "| $1 | $(us "$n") | $(us "$v") | $(ratio "$n" "$v") |"
	fi
}
# verdict WHO: the semaphore round trip against both futex ones.
verdict() {
	local fp pp sp rt rp
	fp=$(med "$1" futex_pingpong); pp=$(med "$1" futex_procpong)
	sp=$(med "$1" sem_pingpong)
	rt=$(ratio "$fp" "$sp"); rp=$(ratio "$pp" "$sp")
	echo "$rt the threads' futex one (target ≤ 2x: $(met "$rt" 2 0)) and $rp the processes' (target ≤ 2x: $(met "$rp" 2 0))"
}
if [ -n "$OLD" ]; then
	head="| round trip | native | old vkernel (x native) | new vkernel (x native) |
|---|---:|---:|---:|"
	tail="Inside vkernel the semaphore round trip costs, with the old build,
$(verdict old);
with the new one, $(verdict new)."
else
	head="| round trip | native | vkernel | vkernel/native |
|---|---:|---:|---:|"
	tail="Inside vkernel the semaphore round trip costs
$(verdict new)."
fi
table=$(cat <<T
$head
$(row "futex ping-pong, two threads" futex_pingpong)
$(row "futex ping-pong, two processes" futex_procpong)
$(row "SysV semaphore ping-pong, two processes" sem_pingpong)

Medians of $RUNS run(s) of each, taken in turn. $tail
T
)
bench_report "SysV IPC" "$table"
