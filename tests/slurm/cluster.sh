#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for tests/test_slurm_profile.py.
#   cluster.sh install        apt-get install slurm-wlm munge (Debian), if missing
#   cluster.sh start DIR      write DIR/slurm.conf, start munged, slurmctld and slurmd; wait for the node
#   cluster.sh stop DIR       stop the daemons started from DIR
# Jobs stay visible to squeue for MinJobAge=3600 s, so job status can be read with squeue (no slurmdbd).
set -euo pipefail
cmd=${1:?usage: cluster.sh install|start DIR|stop DIR}

case "$cmd" in
install)
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q slurm-wlm munge >/dev/null
  fi
  ;;
start)
  dir=$(realpath -m "${2:?DIR}")
  mkdir -p "$dir"/{state,spool,log}
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
  cat >"$dir/slurm.conf" <<CONF
ClusterName=choicelab-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=3600
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SlurmctldPort=16817
SlurmdPort=16818
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  fi
  chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge 2>/dev/null || true
  chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge && chown munge:munge /run/munge
  pgrep -x munged >/dev/null || su -s /bin/sh munge -c "/usr/sbin/munged" || /usr/sbin/munged --force
  # Job steps (srun inside sbatch) read the default location, so point it at this cluster's config.
  mkdir -p /etc/slurm
  ln -sfn "$dir/slurm.conf" /etc/slurm/slurm.conf
  export SLURM_CONF="$dir/slurm.conf"
  # One test cluster at a time on this machine: stop daemons left over from an earlier start.
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  sleep 1
  slurmctld -f "$dir/slurm.conf"
  slurmd -f "$dir/slurm.conf"
  for _ in $(seq 1 60); do
    if sinfo -h -o "%t" 2>/dev/null | grep -qE "idle|mix"; then
      echo "SLURM_CONF=$dir/slurm.conf"
      exit 0
    fi
    sleep 1
  done
  echo "the SLURM node did not become idle; see $dir/log" >&2
  sinfo >&2 || true
  exit 1
  ;;
stop)
  dir=$(realpath -m "${2:?DIR}")
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  ;;
esac
