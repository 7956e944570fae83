#!/bin/bash
# ab.sh - two vkernel builds against each other and native, in one run:
# wall times of whole programs, each the median of N runs, the three
# taken in turn so that the machine's drift touches them alike.
#
# Usage: [OLD_ARGS=...] [NEW_ARGS=...] bench/ab.sh OLD_VKERNEL NEW_VKERNEL [N [PROGRAM...]]
#   make      make -j2 of the 7-file C project of threads.sh, in /tmp
#   python3   /usr/bin/python3 -c pass
#   true200   a bash loop running the dynamic /bin/true 200 times
#   getpid    bench/micro/getpid.c: 200,000 getpid calls, static
#   true      the dynamic /bin/true once: vkernel's start-up and exit
# (all but true unless PROGRAMs are named).  OLD_ARGS and NEW_ARGS are
# options of "vkernel run" for each (one build against itself with an
# option: NEW_ARGS="--crash-dir /tmp/c").
# Prints a Markdown table: native, old and new, with ratios to native.
set -u
OLD=${1:?usage: ab.sh OLD_VKERNEL NEW_VKERNEL [N]}
NEW=${2:?usage: ab.sh OLD_VKERNEL NEW_VKERNEL [N]}
N=${3:-9}
shift $(($# < 3 ? $# : 3))
progs=${*:-make python3 true200 getpid}
read -r -a old_args <<< "${OLD_ARGS:-}"
read -r -a new_args <<< "${NEW_ARGS:-}"
work=$(mktemp -d /tmp/vk-bench-ab.XXXXXX)
trap 'rm -rf "$work" /tmp/vk-bench-ab-mk' EXIT

mkdir "$work/src"
for i in 1 2 3 4 5 6; do
	printf 'int f%d(void) { return %d; }\n' "$i" "$i" > "$work/src/f$i.c"
done
printf '#include <stdio.h>\nint f1(void), f2(void), f3(void), f4(void), f5(void), f6(void);\nint main(void) { printf("%%d\\n", f1() + f2() + f3() + f4() + f5() + f6()); return 0; }\n' > "$work/src/main.c"
printf 'OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O1 -c $< -o $@\n' > "$work/src/Makefile"
echo "rm -rf /tmp/vk-bench-ab-mk && cp -r $work/src /tmp/vk-bench-ab-mk && make -s -C /tmp/vk-bench-ab-mk -j2" > "$work/make.sh"
echo 'for i in $(seq 200); do /bin/true; done' > "$work/true200.sh"
cc -static -O2 -o "$work/getpid" "$(dirname "$0")/micro/getpid.c" ||
	exit 1

# Wall microseconds of one run; FAILED when it fails.
t() {
	local s
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || { echo FAILED; return; }
	echo $(( ($(date +%s%N) - s) / 1000 ))
}
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| program | native | old | new |"
echo "|---|---:|---:|---:|"
for name in $progs; do
	case $name in
	true) cmd=(/bin/true) ;;
	make) cmd=(bash "$work/make.sh") ;;
	python3) cmd=(/usr/bin/python3 -c pass) ;;
	true200) cmd=(bash "$work/true200.sh") ;;
	getpid) cmd=("$work/getpid" 200000) ;;
	esac
	: > "$work/n"; : > "$work/o"; : > "$work/w"
	for _ in $(seq "$N"); do
		t "${cmd[@]}" >> "$work/n"
		t "$OLD" run "${old_args[@]}" -- "${cmd[@]}" >> "$work/o"
		t "$NEW" run "${new_args[@]}" -- "${cmd[@]}" >> "$work/w"
	done
	if grep -q FAILED "$work/n" "$work/o" "$work/w"; then
		echo "| $name | FAILED | | |"
		continue
	fi
	awk -v nm="$name" -v n="$(med < "$work/n")" -v o="$(med < "$work/o")" \
	    -v w="$(med < "$work/w")" 'BEGIN { printf "| %s | %.1f ms | %.1f ms (%.2fx) | %.1f ms (%.2fx) |\n", nm, n / 1000, o / 1000, o / n, w / 1000, w / n }'
done
