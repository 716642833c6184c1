# tests/dataset/slurmlib.sh — a single-node Slurm cluster on localhost, for
# slurm.test and `make bench-slurm`: munged with a key of its own,
# slurmctld and slurmd from a generated slurm.conf (CPUS CPUs, two ports
# away from Slurm's defaults), every file under the folder D given.
#   slurm_up D [CPUS]   start it; export SLURM_CONF; on failure return 1
#                       with the reason in $slurm_why
#   slurm_down D        stop every daemon it started and wait for them
# Sourced (POSIX sh); needs root and the slurm-wlm and munge packages.
slurm_why=
slurm_up() {
	_d=$1 _cpus=${2:-2}
	for _t in munged slurmctld slurmd sbatch sinfo scontrol; do
		command -v $_t >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
		command -v $_t >/dev/null 2>&1 ||
			{ slurm_why="$_t is not installed (Debian: slurm-wlm, munge)"; return 1; }
	done
	mkdir -p "$_d/state" "$_d/spool" && chmod 700 "$_d" || { slurm_why="cannot make $_d"; return 1; }
	dd if=/dev/urandom of="$_d/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$_d/munge.key"
	munged --force --socket="$_d/munge.sock" --key-file="$_d/munge.key" --pid-file="$_d/munged.pid" \
		--log-file="$_d/munged.log" --seed-file="$_d/munged.seed" 2>"$_d/munged.err" ||
		{ slurm_why="munged does not start: $(head -1 "$_d/munged.err")"; return 1; }
	_base=$((20000 + $$ % 20000))
	_host=$(hostname -s 2>/dev/null || hostname)
	cat >"$_d/slurm.conf" <<EOC
ClusterName=kpytest
SlurmctldHost=$_host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$_d/munge.sock
CredType=cred/munge
SlurmctldPort=$_base
SlurmdPort=$((_base + 1))
StateSaveLocation=$_d/state
SlurmdSpoolDir=$_d/spool
SlurmctldPidFile=$_d/slurmctld.pid
SlurmdPidFile=$_d/slurmd.pid
SlurmctldLogFile=$_d/slurmctld.log
SlurmdLogFile=$_d/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$_host NodeAddr=127.0.0.1 CPUs=$_cpus State=UNKNOWN
PartitionName=kpy Nodes=$_host Default=YES MaxTime=INFINITE State=UP
EOC
	export SLURM_CONF="$_d/slurm.conf"
	slurmctld -f "$SLURM_CONF" 2>"$_d/ctld.err" ||
		{ slurm_why="slurmctld does not start: $(head -1 "$_d/ctld.err")"; return 1; }
	slurmd -f "$SLURM_CONF" 2>"$_d/slurmd.err" ||
		{ slurm_why="slurmd does not start: $(head -1 "$_d/slurmd.err")"; return 1; }
	# the node comes up idle, or a daemon gives up: wait for either (a bound
	# on the polls, not on the machine's speed, so a broken setup cannot hang)
	_i=0
	until sinfo -h -o %T 2>/dev/null | grep -q '^idle'; do
		_i=$((_i + 1))
		if [ $_i -gt 3000 ] || ! kill -0 "$(cat "$_d/slurmd.pid" 2>/dev/null)" 2>/dev/null; then
			slurm_why="the Slurm node does not come up: $(tail -2 "$_d/slurmd.log" 2>/dev/null | tr '\n' ' ')"
			return 1
		fi
		sleep 0.1
	done
}

slurm_down() {
	_d=$1
	[ -f "$_d/slurm.conf" ] && SLURM_CONF=$_d/slurm.conf scontrol shutdown >/dev/null 2>&1
	[ -f "$_d/munged.pid" ] && kill "$(cat "$_d/munged.pid")" 2>/dev/null
	_i=0
	while { kill -0 "$(cat "$_d/slurmctld.pid" 2>/dev/null)" 2>/dev/null ||
		kill -0 "$(cat "$_d/slurmd.pid" 2>/dev/null)" 2>/dev/null ||
		kill -0 "$(cat "$_d/munged.pid" 2>/dev/null)" 2>/dev/null; } && [ $_i -lt 3000 ]; do
		_i=$((_i + 1)); sleep 0.1
	done
	[ $_i -lt 3000 ]
}
