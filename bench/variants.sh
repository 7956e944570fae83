# variants.sh - what the runners that set vkernel variants beside native
# share (fastpath.sh, parbuild.sh): sourced after the runner sets NAME
# and N (its default count of runs).  It takes the runner's arguments
# ([VKERNEL [N]] [OUTFILE.md]) into VK, N and OUT, the VARIANTS
# ("LABEL=OPTIONS;..." of "vkernel run") into cols (native first) and
# opts, and gives med, a table's head and the report to OUTFILE.

HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
VK=${1:-$ROOT/build/host-linux/vkernel}
OUT=
case ${2:-} in
*.md) OUT=$2 ;;
'') ;;
*) N=$2; OUT=${3:-} ;;
esac
VARIANTS=${VARIANTS:-ptrace=--platform=ptrace;systrap=--platform=systrap}
[ -x "$VK" ] || { echo "$NAME.sh: no vkernel at $VK" >&2; exit 1; }

IFS=';' read -r -a variants <<< "$VARIANTS"
cols=(native)
declare -A opts
for v in "${variants[@]}"; do
	cols+=("${v%%=*}")
	opts[${v%%=*}]=${v#*=}
done

# The median of the numbers on stdin, FAILED left out; FAILED if none.
med() { grep -v FAILED | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "FAILED"}'; }

# variants_head FIRST: the table's head and rule, a column of each
# variant and its ratio to native after FIRST and native, each line
# open at its end for more columns.
variants_head() {
	local head="| $1 | native |" rule="|---|---:|"
	for c in "${cols[@]:1}"; do
		head+=" $c | x native |"
		rule+="---:|---:|"
	done
	echo "$head"
	echo "$rule"
}

# variants_report TITLE SETTINGS TABLE: appends TABLE to OUTFILE, when
# one was given, under a dated heading with the command (the
# environment SETTINGS first).
variants_report() {
	[ -n "$OUT" ] || return 0
	{
		echo
		echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC'): $1"
		echo
		echo "Command: \`$2 bench/$NAME.sh $VK $N $OUT\` ($(nproc) CPUs, $(uname -r), load at the end $(cut -d' ' -f1-3 /proc/loadavg)), tree $(git -C "$ROOT" rev-parse --short HEAD)"
		echo
		echo "$3"
	} >> "$OUT"
}
