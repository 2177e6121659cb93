# A single-node Slurm cluster in a scratch folder, for the tests and benchmarks that run the job
# scripts of docs/SCALING.md: munged, slurmctld and slurmd from Debian's packages, without systemd
# or cgroups, every daemon in the foreground so that its PID is known. Sourced by bash:
#   slurm_start DIR CPUS   starts the cluster (state, spool, logs and slurm.conf in DIR, a node of
#                          CPUS CPUs) and exports SLURM_CONF; returns 77 when Slurm is missing
#   slurm_stop             stops every daemon slurm_start started, by PID (also on failure)
#   scaling_block DOC NAME prints the fenced block of DOC after its marker "<!-- slurm: NAME"
# Daemons that did not start leave their logs in DIR.

slurm_pids=()

slurm_missing() {
  local tool
  for tool in munged slurmctld slurmd sbatch sinfo squeue scontrol setpriv; do
    command -v "$tool" >/dev/null || { echo "$tool"; return 0; }
  done
  id munge >/dev/null 2>&1 || { echo "the munge user"; return 0; }
  return 1
}

# A TCP port nothing listens on, from the kernel.
slurm_free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_start() {
  local dir=$1 cpus=$2 missing
  if missing=$(slurm_missing); then
    echo "SKIP: Slurm is not installed ($missing missing; scripts/install-deps.sh installs it)"
    return 77
  fi
  # munged refuses folders that others may write, and must reach its own as the munge user.
  mkdir -p "$dir"
  chmod 755 "$dir"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
  chmod 711 "$dir/munge"
  head -c 1024 /dev/urandom >"$dir/munge/key"
  chmod 400 "$dir/munge/key"
  chown -R munge:munge "$dir/munge"
  setpriv --reuid=munge --regid=munge --init-groups munged --foreground \
    --key-file="$dir/munge/key" --socket="$dir/munge/socket" --pid-file="$dir/munge/pid" \
    --seed-file="$dir/munge/seed" --log-file="$dir/munge/log" >>"$dir/munged.out" 2>&1 &
  slurm_pids+=($!)
  local host ctld_port slurmd_port
  host=$(hostname -s)
  ctld_port=$(slurm_free_port)
  slurmd_port=$(slurm_free_port)
  cat >"$dir/slurm.conf" <<CONF
ClusterName=test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  local i
  for i in $(seq 100); do
    [ -S "$dir/munge/socket" ] && break
    sleep 0.05
  done
  if [ ! -S "$dir/munge/socket" ]; then
    echo "munged did not start (every folder above $dir must be searchable by the munge user):"
    cat "$dir/munged.out"
    return 1
  fi
  slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -N localhost -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  for i in $(seq 300); do
    [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.1
  done
  echo "the Slurm node did not become idle within 30 s:"
  sinfo 2>&1 || true
  tail -n 20 "$dir"/*.log "$dir"/*.out "$dir/munge/log" 2>/dev/null || true
  return 1
}

slurm_stop() {
  local pid i
  for pid in "${slurm_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # SIGKILL for a daemon still there after 5 s.
  for i in $(seq 50); do
    for pid in "${slurm_pids[@]}"; do kill -0 "$pid" 2>/dev/null && break; pid=; done
    [ -z "$pid" ] && break
    sleep 0.1
  done
  for pid in "${slurm_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${slurm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  slurm_pids=()
}

scaling_block() {
  awk -v marker="<!-- slurm: $2" '
    index($0, marker) == 1 { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$1"
}
