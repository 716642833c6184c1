# ptxshape.awk — counts of a few instruction shapes in a PTX file, for
# tests/ptx/static.test and `make bench-ptx-static`.  Prints one line:
#   sqrt.approx(f32) div.approx div.full sqrt.rn.f32 div.rn.f32
#   guarded-CAS unguarded-CAS generic-accesses
# A CAS is guarded when a predicated bra, after a setp, is among the three
# instructions before it (the compare-before-CAS early exit); a generic
# access is an ld/st/atom/red without a state space.  With -v list=1 it
# prints the generic accesses instead.
function generic(op,   n, p, i) {
	n = split(op, p, ".")
	if (p[1] != "ld" && p[1] != "st" && p[1] != "atom" && p[1] != "red" && p[1] != "ldu")
		return 0
	for (i = 2; i <= n; i++)
		if (p[i] ~ /^(global|shared|local|param|const)/)
			return 0
	return 1
}
{
	sub(/\/\/.*/, "")
	gsub(/^[ \t]+|[ \t]+$/, "")
	if ($0 == "" || $0 ~ /^[.{}]/ || $0 ~ /^[$A-Za-z_][$A-Za-z0-9_]*:$/)
		next
	pred = ""
	op = $1
	if (op ~ /^@/) { pred = op; op = $2 }
	if (op ~ /^sqrt\.approx/ && op ~ /\.f32$/) sa++
	if (op ~ /^div\.approx/) da++
	if (op ~ /^div\.full/) df++
	if (op == "sqrt.rn.f32") sr++
	if (op == "div.rn.f32") dr++
	if (op ~ /^atom\./ && op ~ /\.cas\./) {
		ok = 0
		for (i = 1; i <= 3; i++)
			if (p_op[i] == "bra" && p_pred[i] != "")
				for (j = i + 1; j <= 3; j++)
					if (p_op[j] ~ /^setp\./) ok = 1
		if (ok) gc++; else uc++
	}
	if (generic(op)) { ga++; if (list) print }
	# the last three instructions, nearest first
	p_op[3] = p_op[2]; p_pred[3] = p_pred[2]
	p_op[2] = p_op[1]; p_pred[2] = p_pred[1]
	p_op[1] = op; p_pred[1] = pred
}
END {
	if (!list)
		print sa + 0, da + 0, df + 0, sr + 0, dr + 0, gc + 0, uc + 0, ga + 0
}
