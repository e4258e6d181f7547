#!/usr/bin/env bash
# A single-node SLURM cluster on this machine: controller and compute node on localhost, from
# Debian's slurm-wlm and munge packages. Idempotent: installs what is missing, writes the config
# only when it changed, starts only daemons that are not running, resumes a drained node, then
# waits until the node takes jobs. Used by tests/e2e/test_slurm_e2e.py; needs root.
#
#   bash scripts/setup-slurm.sh            # then: sinfo; sbatch …
#
# Not for a real cluster: one node, root as SlurmUser, no accounting, no cgroup confinement.
set -euo pipefail

say() { echo "setup-slurm: $*" >&2; }
[ "$(id -u)" = 0 ] || { say "run as root"; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null \
   || ! command -v sbatch >/dev/null; then
  say "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null; }
fi

# munge: one key, one daemon.
if [ ! -s /etc/munge/munge.key ]; then
  say "creating the munge key"
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 1 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null
fi

node=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
config=$(cat <<EOF
# Written by gaia2-runner scripts/setup-slurm.sh: a single-node cluster on localhost.
ClusterName=gaia2
SlurmctldHost=${node}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=300
NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${memory} State=UNKNOWN
PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP
EOF
)
changed=0
if [ ! -f /etc/slurm/slurm.conf ] || [ "$(cat /etc/slurm/slurm.conf)" != "$config" ]; then
  say "writing /etc/slurm/slurm.conf (node ${node}, ${cpus} CPUs)"
  printf '%s\n' "$config" > /etc/slurm/slurm.conf
  changed=1
fi

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
if ! running /run/slurmctld.pid; then
  say "starting slurmctld"
  slurmctld
elif [ "$changed" = 1 ]; then
  scontrol reconfigure
fi
if ! running /run/slurmd.pid; then
  say "starting slurmd"
  slurmd
fi

for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null | head -1 || true)
  case "$state" in
    idle*|mixed*|allocated*|completing*) say "node ${node} is ${state}"; exit 0 ;;
    down*|drain*|drained*|draining*|fail*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
  esac
  sleep 1
done
say "the node never became ready (sinfo: ${state:-no answer}); see /var/log/slurm/"
exit 1
