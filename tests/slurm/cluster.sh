#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for tests/test_slurm_profile.py.
#   cluster.sh install        apt-get install slurm-wlm munge (Debian), if missing
#   cluster.sh start DIR      write DIR/slurm.conf, start munged, slurmctld and slurmd; wait for the node
#   cluster.sh stop DIR       stop the daemons started from DIR, by the pids recorded in DIR (never by name)
# The daemons record their pids in DIR: slurmctld.pid and slurmd.pid (SlurmctldPidFile, SlurmdPidFile), and
# munged.pid when this script started munged (a munged that was already running is left alone).
# Jobs stay visible to squeue for MinJobAge=3600 s, so job status can be read with squeue (no slurmdbd).
set -euo pipefail
cmd=${1:?usage: cluster.sh install|start DIR|stop DIR}

# stop_recorded PIDFILE NAME: stop the process whose pid PIDFILE records, if it still is NAME (a recycled pid
# belongs to someone else), wait until it is gone, and drop the record.
stop_recorded() {
  local pidfile=$1 name=$2 pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -e "/proc/$pid" ] || break
      sleep 0.2
    done
    if [ -e "/proc/$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$pidfile"
}

stop_cluster() {
  local dir=$1 pid
  # Cancel the cluster's jobs first: slurmd ends their step daemons (slurmstepd), which outlive a stopped slurmd.
  pid=$(cat "$dir/slurmctld.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmctld ]; then
    export SLURM_CONF="$dir/slurm.conf"
    scancel --partition=debug 2>/dev/null || true
    for _ in $(seq 1 60); do
      [ -z "$(squeue -h -t PENDING,RUNNING,COMPLETING,CONFIGURING,SUSPENDED 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  stop_recorded "$dir/slurmd.pid" slurmd
  stop_recorded "$dir/slurmctld.pid" slurmctld
  stop_recorded "$dir/munged.pid" munged
}

# wait_pidfile PIDFILE: wait until a daemon has written its pid
wait_pidfile() {
  for _ in $(seq 1 50); do
    [ -s "$1" ] && return 0
    sleep 0.2
  done
  echo "no pid in $1" >&2
  return 1
}

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
  # One test cluster at a time on this machine: stop the daemons an earlier start left running, by the pids it
  # recorded (/etc/slurm/slurm.conf links to that start's DIR; a slurm.conf that is not this script's is left alone).
  previous=$(readlink -f /etc/slurm/slurm.conf 2>/dev/null || true)
  if [ -n "$previous" ] && [ "$previous" != "$dir/slurm.conf" ] && grep -qx "ClusterName=choicelab-test" "$previous" 2>/dev/null; then
    stop_cluster "$(dirname "$previous")"
  fi
  munge_pidfile=/run/munge/munged.pid
  munge_running=no
  if [ -s "$munge_pidfile" ] && [ "$(cat "/proc/$(cat "$munge_pidfile")/comm" 2>/dev/null)" = munged ]; then
    munge_running=yes
  fi
  if [ "$munge_running" = no ]; then
    rm -f "$munge_pidfile"
    su -s /bin/sh munge -c "/usr/sbin/munged" || /usr/sbin/munged --force
    wait_pidfile "$munge_pidfile"
    cp "$munge_pidfile" "$dir/munged.pid"
  fi
  # Job steps (srun inside sbatch) read the default location, so point it at this cluster's config.
  mkdir -p /etc/slurm
  ln -sfn "$dir/slurm.conf" /etc/slurm/slurm.conf
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$dir/slurm.conf"
  wait_pidfile "$dir/slurmctld.pid"
  slurmd -f "$dir/slurm.conf"
  wait_pidfile "$dir/slurmd.pid"
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
  stop_cluster "$(realpath -m "${2:?DIR}")"
  ;;
esac
