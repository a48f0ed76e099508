# A one-node Slurm cluster on 127.0.0.1 for tests, sourced by run.sh and
# throughput.sh: munged, slurmctld and slurmd started in the foreground as
# children of the calling shell, state under one scratch directory, stopped
# by the pids recorded at start (never by name).
#
#   vs_cluster_start DIR PLUGIN|none   # PLUGIN: path of job_submit_vramest.so
#   vs_cluster_stop                    # idempotent; call it from an EXIT trap
#
# The node has GPUs of two types without hardware: gres.conf points each GPU
# at a character device that exists everywhere (/dev/null, /dev/zero ...) and
# slurmd only checks that the file is a device. No cgroups, proctrack/linuxproc,
# task/none. Clients find the controller through SLURM_CONF, which is
# exported, so no command falls back to DNS SRV lookups.

VS_PIDS=()

vs_log() { printf '%s\n' "$*" >&2; }

# Free TCP ports on 127.0.0.1.
vs_free_ports() {
    python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# Slurm's own plugin directory (where auth_munge.so is).
vs_slurm_plugindir() {
    local d
    for d in /usr/lib/*/slurm-wlm /usr/lib/*/slurm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
        if [ -e "$d/auth_munge.so" ]; then
            printf '%s\n' "$d"
            return 0
        fi
    done
    return 1
}

# Wait up to $1 seconds for command "$2..." to succeed.
vs_wait_for() {
    local secs=$1
    shift
    local end=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}

vs_node_idle() {
    [ "$(timeout 10 sinfo -h -n vnode -o %t 2>/dev/null)" = idle ]
}

vs_cluster_start() {
    local dir=$1 plugin=$2 sysdir ports ctl_port d_port host plugindirs submit i=0
    sysdir=$(vs_slurm_plugindir) || { vs_log "no Slurm plugin directory found"; return 1; }
    read -r ctl_port d_port <<<"$(vs_free_ports 2)"
    host=$(hostname -s)
    mkdir -p "$dir"/{etc,state,spool,log,dev}
    chmod 755 "$dir"
    for d in null zero full random urandom tty; do
        ln -sf "/dev/$d" "$dir/dev/gpu$i"
        i=$((i + 1))
    done
    plugindirs=$sysdir submit=""
    if [ "$plugin" != none ]; then
        plugindirs="$sysdir:$(dirname "$plugin")"
        submit="JobSubmitPlugins=vramest"
    fi
    cat >"$dir/etc/slurm.conf" <<EOF
ClusterName=vramest-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
PluginDir=$plugindirs
$submit
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
GresTypes=gpu
NodeName=vnode NodeAddr=127.0.0.1 NodeHostname=$host CPUs=2 RealMemory=1000 Gres=gpu:a100:4,gpu:t4:2 State=UNKNOWN
PartitionName=debug Nodes=vnode Default=YES MaxTime=INFINITE State=UP
EOF
    cat >"$dir/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=vnode Name=gpu Type=a100 File=$dir/dev/gpu[0-3]
NodeName=vnode Name=gpu Type=t4 File=$dir/dev/gpu[4-5]
EOF
    export SLURM_CONF=$dir/etc/slurm.conf
    head -c 1024 /dev/urandom >"$dir/etc/munge.key"
    chmod 400 "$dir/etc/munge.key"

    munged -F --force --socket="$dir/munge.sock" --key-file="$dir/etc/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed" \
        >"$dir/log/munged.out" 2>&1 &
    VS_PIDS+=($!)
    vs_wait_for 20 test -S "$dir/munge.sock" || { vs_log "munged did not start"; return 1; }

    # VS_CTLD_PRELOAD: sanitizer runtimes for an instrumented plugin.
    env ${VS_CTLD_PRELOAD:+LD_PRELOAD="$VS_CTLD_PRELOAD"} slurmctld -D -i >"$dir/log/slurmctld.out" 2>&1 &
    VS_PIDS+=($!)
    VS_CTLD_PID=$!
    slurmd -D -N vnode >"$dir/log/slurmd.out" 2>&1 &
    VS_PIDS+=($!)
    if ! vs_wait_for 60 vs_node_idle; then
        vs_log "the node did not come up; slurmctld says:"
        tail -n 20 "$dir/log/slurmctld.out" >&2
        return 1
    fi
}

vs_cluster_stop() {
    local pid end
    for pid in "${VS_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    end=$((SECONDS + 20))
    for pid in "${VS_PIDS[@]}"; do
        while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    VS_PIDS=()
}
