//! Slurm: a one-node Slurm cluster on this machine, started by the test in its own
//! temporary directory (Debian's munge, slurmctld and slurmd, installed by
//! tests/install-deps.sh; their own key, sockets, ports, state and logs, nothing of the
//! system's), then `srun numascope run --quick --output 'OUT/{host}'` as a site runs it, and
//! `numascope fleet OUT`. The daemons are stopped by a Drop guard, so a failing assertion
//! leaves no daemon and nothing in /tmp. Checked by mechanics: the job's output lands under
//! the node's name and fleet reads it (one host is too few to
//! judge: it says so first and exits 4).

mod common;
mod engine;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::numascope;

/// slurm.conf for one node, `host`, everything under `dir`.
fn slurm_conf(dir: &Path, host: &str, ctld_port: u16, slurmd_port: u16) -> String {
    let d = dir.display();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "ClusterName=numascope-test\n\
         SlurmctldHost={host}(127.0.0.1)\n\
         SlurmctldPort={ctld_port}\n\
         SlurmdPort={slurmd_port}\n\
         SlurmUser=root\n\
         SlurmdUser=root\n\
         AuthType=auth/munge\n\
         AuthInfo=socket={d}/munge/sock\n\
         CredType=cred/munge\n\
         StateSaveLocation={d}/state\n\
         SlurmdSpoolDir={d}/spool\n\
         SlurmctldPidFile={d}/slurmctld.pid\n\
         SlurmdPidFile={d}/slurmd.pid\n\
         SlurmctldLogFile={d}/log/slurmctld.log\n\
         SlurmdLogFile={d}/log/slurmd.log\n\
         ProctrackType=proctrack/linuxproc\n\
         TaskPlugin=task/none\n\
         SelectType=select/cons_tres\n\
         SelectTypeParameters=CR_CPU\n\
         MpiDefault=none\n\
         ReturnToService=2\n\
         JobAcctGatherType=jobacct_gather/none\n\
         AccountingStorageType=accounting_storage/none\n\
         SwitchType=switch/none\n\
         PlugStackConfig=/dev/null\n\
         NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n\
         PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
    )
}

fn log(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("log").join(format!("{name}.out"))).unwrap_or_default()
}

#[test]
fn srun_writes_each_nodes_run_under_its_name_and_fleet_reads_it() {
    let (Some(munged), Some(ctld), Some(slurmd), Some(srun), Some(sinfo)) = (
        engine::find("munged", "munge"),
        engine::find("slurmctld", "slurmctld"),
        engine::find("slurmd", "slurmd"),
        engine::find("srun", "slurm-client"),
        engine::find("sinfo", "slurm-client"),
    ) else {
        return;
    };
    // Declared first, dropped last: the daemons stop before their directory goes.
    let tmp = tempfile::tempdir().unwrap();
    let mut daemons = engine::Daemons::default();
    let d = tmp.path();
    for sub in ["munge", "state", "spool", "log", "out", "lock"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    // munged refuses a key or a socket directory others can read.
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(d.join("munge"), std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut key = vec![0u8; 1024];
    {
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut key)
            .unwrap();
    }
    let key_file = d.join("munge/munge.key");
    std::fs::write(&key_file, &key).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o400)).unwrap();
    let m = d.join("munge");
    daemons.start(
        "munged",
        Command::new(munged)
            .args(["--foreground", "--force"])
            .arg(format!("--socket={}", m.join("sock").display()))
            .arg(format!("--key-file={}", key_file.display()))
            .arg(format!("--log-file={}", m.join("log").display()))
            .arg(format!("--pid-file={}", m.join("pid").display()))
            .arg(format!("--seed-file={}", m.join("seed").display())),
        &d.join("log/munged.out"),
    );
    engine::wait_until("munged's socket", Duration::from_secs(30), || {
        m.join("sock").exists()
    });
    let host = engine::short_host();
    let conf = d.join("slurm.conf");
    let ports = (engine::free_port(), engine::free_port());
    std::fs::write(&conf, slurm_conf(d, &host, ports.0, ports.1)).unwrap();
    daemons.start(
        "slurmctld",
        Command::new(ctld).arg("-D").arg("-f").arg(&conf),
        &d.join("log/slurmctld.out"),
    );
    daemons.start(
        "slurmd",
        Command::new(slurmd).arg("-D").arg("-f").arg(&conf),
        &d.join("log/slurmd.out"),
    );
    let idle = || {
        let o = Command::new(&sinfo)
            .env("SLURM_CONF", &conf)
            .args(["-h", "-o", "%t"])
            .output();
        o.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
    };
    engine::wait_until("the Slurm node to be idle", Duration::from_secs(60), || {
        daemons.check_running(&|n| log(d, n));
        idle()
    });
    // The job, as a site submits it: one task per node, output under the node's name.
    let out = d.join("out");
    let o = Command::new("timeout")
        .arg("300")
        .arg(srun)
        .args(["-N", "1", "-n", "1"])
        .env("SLURM_CONF", &conf)
        .env("NUMASCOPE_LOCK_DIR", d.join("lock"))
        .arg(engine::numascope_bin())
        .args(["run", "--quick", "--only", "c2c", "--output"])
        .arg(format!("{}/{{host}}", out.display()))
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "srun: {said}\n{}", log(d, "slurmd"));
    let results = out.join(&host).join("results.json");
    assert!(results.is_file(), "{said}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(r["host"], host.as_str());
    // The job is over before the daemons stop (its step daemon exits with it).
    let squeue = engine::find("squeue", "slurm-client").unwrap();
    engine::wait_until(
        "the job to leave the queue",
        Duration::from_secs(60),
        || {
            let o = Command::new(&squeue)
                .env("SLURM_CONF", &conf)
                .arg("-h")
                .output();
            o.is_ok_and(|o| o.status.success() && o.stdout.is_empty())
        },
    );
    let f = numascope().arg("fleet").arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&f.stdout);
    assert_eq!(f.status.code(), Some(4), "{text}");
    assert!(text.starts_with("Not judged: "), "{text}");
    assert!(text.contains("Fleet of 1 host(s)"), "{text}");
}
