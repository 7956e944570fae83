#!/bin/bash
# spin.sh - what the systrap platform's spinning costs and buys, in one
# run: each row natively, under --platform=ptrace and --platform=systrap
# (and under an older build's systrap when given), the median of N runs,
# the columns taken in turn so that the machine's drift touches them alike.
#
# Usage: bench/spin.sh VKERNEL [OLD_VKERNEL [N [SLEEP]]]
#   busy2, compute    bench/micro/busy2.c: two threads of integer work,
#                     a getpid every 10^6 rounds (a build's compiler):
#                     wall ms, and the user+sys ms the guest is told
#   busy2, syscalls   the same with a getpid every 10^3 rounds
#   forkwait          bench/micro/forkwait.c: fork, _exit, wait, us each
#   getpid            bench/micro/getpid.c: ns a call
#   sleep             "sleep SLEEP" (default 10): the CPU ms of vkernel
#                     and its stubs while the guest sleeps (perf stat's
#                     task-clock; without perf, time(1)'s user+sys)
# Prints a Markdown table.
set -u
NEW=${1:?usage: spin.sh VKERNEL [OLD_VKERNEL [N [SLEEP]]]}
OLD=${2:-}
N=${3:-5}
SLEEP=${4:-10}
here=$(dirname "$0")
work=$(mktemp -d /tmp/vk-bench-spin.XXXXXX)
trap 'rm -rf "$work"' EXIT

cc=musl-gcc
command -v musl-gcc >/dev/null || cc=cc
for p in busy2 forkwait getpid; do
	$cc -static -O2 -pthread -o "$work/$p" "$here/micro/$p.c" || exit 1
done

cols=(native ptrace systrap)
[ -n "$OLD" ] && cols+=(old)
# The command of column $1 for the guest command that follows.
run_in() {
	local c=$1
	shift
	case $c in
	native) "$@" ;;
	ptrace|systrap) "$NEW" run --platform="$c" -- "$@" ;;
	old) "$OLD" run --platform=systrap -- "$@" ;;
	esac
}
# One figure of one run of row $1 in column $2.
one() {
	case $1 in
	compute|syscalls)
		local every=1000000 iters=200000000
		[ "$1" = syscalls ] && every=1000 iters=20000000
		run_in "$2" "$work/busy2" $iters $every 2>/dev/null | awk '
		    /busy2:/ { printf "%.0f %.0f\n", $3, $6 + $9 }' ;;
	forkwait)
		run_in "$2" "$work/forkwait" 300 2>/dev/null |
		    sed -n 's/.* iters, \([0-9.]*\) ns.*/\1/p' |
		    awk '{ printf "%.0f\n", $1 / 1000 }' ;;
	getpid)
		run_in "$2" "$work/getpid" 200000 2>/dev/null |
		    sed -n 's/.* iters, \([0-9.]*\) ns.*/\1/p' ;;
	sleep)
		local cmd
		case $2 in
		native) echo -; return ;;
		old) cmd=("$OLD" run --platform=systrap) ;;
		*) cmd=("$NEW" run --platform="$2") ;;
		esac
		# perf counts every descendant, the stubs too; time(1) only
		# the reaped ones.
		if command -v perf >/dev/null; then
			perf stat -x, -e task-clock -o "$work/time" \
			    "${cmd[@]}" -- sleep "$SLEEP" >/dev/null 2>&1
			awk -F, '/task-clock/ { printf "%.0f\n", $1 }' "$work/time"
		else
			/usr/bin/time -f '%U %S' -o "$work/time" \
			    "${cmd[@]}" -- sleep "$SLEEP" >/dev/null 2>&1
			awk '{ printf "%.0f\n", ($1 + $2) * 1000 }' "$work/time"
		fi ;;
	esac
}
med() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }

rows=(compute syscalls forkwait getpid sleep)
for _ in $(seq "$N"); do
	for r in "${rows[@]}"; do
		for c in "${cols[@]}"; do
			one "$r" "$c" >> "$work/$r.$c"
		done
	done
done
printf '| row |'; printf ' %s |' "${cols[@]}"; echo
printf '|---|'; printf -- '---:|%.0s' "${cols[@]}"; echo
for r in "${rows[@]}"; do
	printf '| %s |' "$r"
	for c in "${cols[@]}"; do
		# busy2: the run of median wall time, "wall (cpu)"
		if [ "$r" = compute ] || [ "$r" = syscalls ]; then
			printf ' %s |' "$(sort -n "$work/$r.$c" | awk '{a[NR]=$0}
			    END { split(a[int((NR+1)/2)], f, " ");
			    printf "%s (%s)", f[1], f[2] }')"
		else
			printf ' %s |' "$(med < "$work/$r.$c")"
		fi
	done
	echo
done
