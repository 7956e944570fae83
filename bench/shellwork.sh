# shellwork.sh - what a build's shell glue does, for `busybox sh`:
#   busybox sh shellwork.sh LOOPS DIR PROG
# Each loop: a builtin test and arithmetic, a command substitution of
# an applet (expr), a two-process pipeline (cat | wc -l) read back, a
# file made, appended to and removed, and an exec of PROG (a static
# program that exits 0).  Checks its own results: a shell that gets one
# wrong fails instead of being timed.
loops=${1:?loops}
dir=${2:?dir}/shellwork.$$
prog=${3:?prog}
mkdir -p "$dir" && cd "$dir" || exit 1
printf '1\n2\n3\n' > three
n=0
while [ "$n" -lt "$loops" ]; do
	n=$(expr "$n" + 1)
	c=$(cat three | wc -l)
	[ "$c" -eq 3 ] || { echo "shellwork: wc said $c" >&2; exit 1; }
	echo "$n" > "t$n"
	echo more >> "t$n"
	[ "$(wc -l < "t$n")" -eq 2 ] || { echo "shellwork: t$n" >&2; exit 1; }
	rm "t$n"
	"$prog" || { echo "shellwork: $prog failed" >&2; exit 1; }
	echo "$n" >> done.log
done
[ "$(wc -l < done.log)" -eq "$loops" ] || { echo "shellwork: log" >&2; exit 1; }
cd / && rm -rf "$dir"
