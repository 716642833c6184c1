# tests/bench/table.awk — `make bench`'s table: reads one measurement a line,
# tab-separated,
#   MEASURE  KPY  ANCHOR  ANCHOR-NAME  UNIT  GOAL
# KPY and ANCHOR numbers or "-" (not measured); UNIT "/s" (a rate: kernels
# per second), "ms" (a time) or "s"; GOAL "-" (none), "ratio>=X",
# "ratio<=X" (ratio = KPY / ANCHOR) or "kpy<=X" (in UNIT).  Lines starting
# with "#" and empty lines are skipped.  Prints a Markdown table: measure,
# kpy, anchor, ratio, goal, met ("met", "not met", "n/a" when a figure the
# goal needs is missing, "-" with no goal).  A malformed line: a message
# on stderr and exit status 1.  A "|" in a cell is written "\|".
function bad(msg) {
	printf "table.awk: line %d: %s\n", NR, msg > "/dev/stderr"
	err = 1
	exit 1
}
function isnum(s) { return s ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function fmt(v, u) {
	if (v == "-") return "-"
	if (u == "/s") return sprintf("%.0f/s", v)
	return sprintf("%.4g %s", v, u)
}
function cell(r, c, s) { gsub(/\|/, "\\|", s); t[r, c] = s; if (length(s) > w[c]) w[c] = length(s) }
BEGIN { FS = "\t"; n = 0; split("measure kpy anchor ratio goal met", h, " ")
	for (c = 1; c <= 6; c++) cell(0, c, h[c]) }
/^#/ || /^$/ { next }
{
	if (NF != 6) bad("6 tab-separated fields expected, " NF " found")
	if ($2 != "-" && !isnum($2)) bad("kpy figure not a number: " $2)
	if ($3 != "-" && !isnum($3)) bad("anchor figure not a number: " $3)
	if ($5 != "/s" && $5 != "ms" && $5 != "s") bad("unit not /s, ms or s: " $5)
	if ($6 != "-" && $6 !~ /^(ratio>=|ratio<=|kpy<=)[0-9]+(\.[0-9]*)?$/) bad("goal not understood: " $6)
	n++
	cell(n, 1, $1)
	cell(n, 2, fmt($2, $5))
	cell(n, 3, fmt($3, $5) " (" $4 ")")
	ratio = "-"
	if ($2 != "-" && $3 != "-" && $3 + 0 > 0) ratio = $2 / $3
	cell(n, 4, ratio == "-" ? "-" : sprintf("%.2fx", ratio))
	if ($6 == "-") { cell(n, 5, "-"); cell(n, 6, "-"); next }
	op = substr($6, 1, index($6, "=") - 1); x = substr($6, index($6, "=") + 1)
	if (op == "kpy<") { g = "<= " x " " $5; v = $2 }
	else { g = substr(op, 6) "= " x "x"; v = ratio }
	cell(n, 5, g)
	if (v == "-") m = "n/a"
	else if (op == "ratio>") m = (v + 0 >= x + 0) ? "met" : "not met"
	else m = (v + 0 <= x + 0) ? "met" : "not met"
	cell(n, 6, m)
}
END {
	if (err) exit 1
	for (r = 0; r <= n; r++) {
		line = "|"
		for (c = 1; c <= 6; c++) line = line sprintf(" %-" w[c] "s |", t[r, c])
		print line
		if (r == 0) {
			line = "|"
			for (c = 1; c <= 6; c++) { d = ""; for (i = 0; i < w[c] + 2; i++) d = d "-"; line = line d "|" }
			print line
		}
	}
}
