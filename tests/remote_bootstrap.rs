//! The bootstrap that runs on the other side of a remote host's channel,
//! run for real by this machine's `sh` (the channel is the plain argument
//! list, as a host's `exec` function would run it): the probe, an agent's
//! process with its variables, files and stdin from the preamble, reading
//! back what it wrote, ending it (also when its channel was cut), the
//! file system methods, and the cleanup. POSIX only.
#![cfg(unix)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent_context::launch::invocation::InvocationFile;
use agent_context::remote::{
    ChannelEnd, Local, LocalSpawn, Op, ProbeProblem, RemoteHost, RemoteRun,
};
use serde_json::json;

struct Place {
    root: PathBuf,
}

impl Place {
    fn new(name: &str) -> Place {
        let root = std::env::temp_dir().join(format!("ac-remote-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("work")).unwrap();
        Place { root }
    }
    fn home(&self) -> PathBuf {
        self.root.join("home")
    }
    fn work(&self) -> String {
        std::fs::canonicalize(self.root.join("work"))
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn argv(op: &Op) -> Vec<String> {
    match &op.local {
        Local::Exec { argv } => argv.clone(),
        other => panic!("not the exec channel: {other:?}"),
    }
}

/// Starts `op` with `HOME` at `home`, its stdin written (then `more`), left open when `keep`.
fn start(op: &Op, home: &Path, more: &str, keep: bool) -> Child {
    let argv = argv(op);
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .env("HOME", home)
        .env_remove("REMOTE_TEST_SET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(op.stdin.as_bytes()).unwrap();
    stdin.write_all(more.as_bytes()).unwrap();
    if keep {
        child.stdin = Some(stdin);
    }
    child
}

struct Ended {
    stdout: Vec<u8>,
    stderr: String,
    end: ChannelEnd,
}

fn finish(child: Child) -> Ended {
    let out = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    Ended {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        end: ChannelEnd {
            exit_code: out.status.code(),
            signal: out.status.signal().map(|s| {
                if s == 9 {
                    "SIGKILL".to_owned()
                } else {
                    format!("SIG{s}")
                }
            }),
        },
    }
}

fn run_op(op: &Op, home: &Path) -> Ended {
    finish(start(op, home, "", false))
}

fn probed(place: &Place, env: Vec<(String, String)>) -> RemoteRun {
    let host = RemoteHost::read(&json!({"exec": {"function": true}}), "options.host").unwrap();
    let mut run = RemoteRun::new(host, "/unused", env, "run-test-1").unwrap();
    let probe = run.probe(Some(&place.work()));
    let answer = run_op(&probe, &place.home());
    let probed = run.probed(&answer.stdout, &answer.stderr).unwrap();
    assert_eq!(probed.cd, place.work());
    run
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < until, "{what} within 10 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_probe_finds_the_home_and_checks_cd() {
    let place = Place::new("probe");
    let host = RemoteHost::read(&json!({"exec": {"function": true}}), "options.host").unwrap();
    let mut run = RemoteRun::new(
        host,
        "/unused",
        vec![("REMOTE_TEST_SET".into(), "a b\nc".into())],
        "run-test-1",
    )
    .unwrap();
    std::os::unix::fs::symlink(place.root.join("work"), place.root.join("link")).unwrap();
    let op = run.probe(Some(&place.root.join("link").to_string_lossy()));
    let answer = run_op(&op, &place.home());
    let probed = run.probed(&answer.stdout, &answer.stderr).unwrap();
    assert_eq!(probed.cd, place.work(), "links resolved");
    assert_eq!(
        probed.run_folder,
        format!(
            "{}/.cache/agent-context/runs/run-test-1",
            place.home().display()
        )
    );
    assert!(probed.env.contains(&(
        "HOME".to_owned(),
        place.home().to_string_lossy().into_owned()
    )));
    let missing = run.probe(Some("/no/such/folder-42"));
    let answer = run_op(&missing, &place.home());
    assert_eq!(
        run.probed(&answer.stdout, &answer.stderr),
        Err(ProbeProblem::Cd(
            "does not exist on the host's exec channel: /no/such/folder-42".into()
        ))
    );
}

#[test]
fn a_process_gets_its_variables_files_folder_and_stdin() {
    let place = Place::new("spawn");
    let mut run = probed(
        &place,
        vec![("REMOTE_TEST_SET".into(), "from the caller".into())],
    );
    let folder = run.run_folder().to_owned();
    run.stage_files(&[InvocationFile {
        path: format!("{folder}/conf/settings.json"),
        content: "{\"a\":\"\\\\ 1\"}\n".into(),
    }]);
    let usage = format!("{folder}/usage.json");
    let script = r#"printf '%s|%s|%s|%s|%s\n' "$REMOTE_TEST_SET" "$ONLY_DEFAULT" "$HOME_SEEN" "$1" "$(pwd)"; cat "$SETTINGS"; while IFS= read -r l; do printf 'in:%s\n' "$l"; done; printf '{"u":1}' > "$USAGE"; exit 3"#;
    let spawn = LocalSpawn {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            script.into(),
            "agent".into(),
            "it's $HOME\nand more".into(),
        ],
        env: vec![
            ("SETTINGS".into(), format!("{folder}/conf/settings.json")),
            ("USAGE".into(), usage.clone()),
        ],
        default_env: vec![
            ("REMOTE_TEST_SET".into(), "a default".into()),
            ("ONLY_DEFAULT".into(), "d".into()),
            ("HOME_SEEN".into(), "not HOME".into()),
        ],
        cwd: place.work(),
        files: vec![],
        outputs: vec![usage.clone()],
    };
    let (id, op) = run.spawn(&spawn).unwrap();
    let ended = finish(start(&op, &place.home(), "line one\nline two\n", false));
    let out = String::from_utf8_lossy(&ended.stdout);
    assert_eq!(
        out,
        format!("from the caller|d|not HOME|it's $HOME\nand more|{}\n{{\"a\":\"\\\\ 1\"}}\nin:line one\nin:line two\n", place.work()),
        "stderr: {}",
        ended.stderr
    );
    assert_eq!(ended.end.exit_code, Some(3));
    let mode = std::fs::metadata(format!("{folder}/conf/settings.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the run's files are the user's alone");
    let reap = run.reap(&id, &spawn.outputs);
    let answer = run_op(&reap, &place.home());
    let end = run.reaped(&ended.end, false, Some(&answer.stdout), &spawn.outputs);
    assert_eq!(end.exit_code, Some(3));
    assert_eq!(end.transport_lost, None);
    assert_eq!(end.outputs, vec![(usage.clone(), "{\"u\":1}".to_owned())]);
    assert!(!Path::new(&usage).exists(), "handed back, then removed");
    let clean = run.clean().unwrap();
    assert!(RemoteRun::finished(&run_op(&clean, &place.home()).stdout));
    assert!(!Path::new(&folder).exists(), "the run's folder is removed");
}

#[test]
fn bytes_that_are_not_text_arrive_whole() {
    let place = Place::new("bytes");
    let mut run = probed(&place, vec![]);
    let file = format!("{}/attachments/image.png", run.run_folder());
    let bytes: Vec<u8> = (0..=255u8).chain([0, b'\\', b'\n', 0xff]).collect();
    run.stage_bytes(&file, &bytes);
    let spawn = LocalSpawn {
        command: "true".into(),
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (_, op) = run.spawn(&spawn).unwrap();
    let ended = run_op(&op, &place.home());
    assert_eq!(ended.end.exit_code, Some(0), "{}", ended.stderr);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
}

#[test]
fn a_command_missing_there_exits_127_naming_the_side() {
    let place = Place::new("missing");
    let mut run = probed(&place, vec![]);
    let spawn = LocalSpawn {
        command: "no-such-agent-4411".into(),
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (_, op) = run.spawn(&spawn).unwrap();
    let ended = run_op(&op, &place.home());
    assert_eq!(ended.end.exit_code, Some(127));
    assert!(
        ended
            .stderr
            .contains("no-such-agent-4411 was not found on the host's exec channel"),
        "{}",
        ended.stderr
    );
}

#[test]
fn kill_ends_the_whole_process_group_there() {
    let place = Place::new("kill");
    let mut run = probed(&place, vec![]);
    let pids = place.root.join("pids");
    let script = format!(
        "sleep 30 & echo $! > {0}; echo $$ >> {0}; wait",
        pids.display()
    );
    let spawn = LocalSpawn {
        command: "sh".into(),
        args: vec!["-c".into(), script],
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (id, op) = run.spawn(&spawn).unwrap();
    let child = start(&op, &place.home(), "", true);
    wait_for("both pids written", || {
        std::fs::read_to_string(&pids)
            .map(|t| t.lines().count() == 2)
            .unwrap_or(false)
    });
    let killed = run_op(&run.kill(&id, "KILL"), &place.home());
    assert!(RemoteRun::finished(&killed.stdout));
    let ended = finish(child);
    let reap = run_op(&run.reap(&id, &[]), &place.home());
    let end = run.reaped(&ended.end, true, Some(&reap.stdout), &[]);
    assert_eq!(end.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(end.transport_lost, None);
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        wait_for("the group is gone", || !alive(pid));
    }
    run_op(&run.clean().unwrap(), &place.home());
}

#[test]
fn a_cut_channel_leaves_nothing_running_and_is_a_lost_transport() {
    let place = Place::new("cut");
    let mut run = probed(&place, vec![]);
    let pids = place.root.join("pids");
    let script = format!(
        "sleep 30 & echo $! > {0}; echo $$ >> {0}; wait",
        pids.display()
    );
    let spawn = LocalSpawn {
        command: "sh".into(),
        args: vec!["-c".into(), script],
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (id, op) = run.spawn(&spawn).unwrap();
    let mut child = start(&op, &place.home(), "", true);
    wait_for("both pids written", || {
        std::fs::read_to_string(&pids)
            .map(|t| t.lines().count() == 2)
            .unwrap_or(false)
    });
    // The channel's own process dies; the agent's group, of its own, lives on.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));
    let ended = Ended {
        stdout: Vec::new(),
        stderr: String::new(),
        end: ChannelEnd {
            exit_code: None,
            signal: Some("SIGKILL".into()),
        },
    };
    drop(child);
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        assert!(alive(pid), "the agent outlives its channel until reaped");
    }
    let reap = run_op(&run.reap(&id, &[]), &place.home());
    let end = run.reaped(&ended.end, false, Some(&reap.stdout), &[]);
    assert_eq!(end.transport_lost.as_deref(), Some("transport_lost: the host's exec channel: the channel's local process was ended by SIGKILL"));
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        wait_for("the group ended through a new connection", || !alive(pid));
    }
    run_op(&run.clean().unwrap(), &place.home());
}

#[test]
fn clean_ends_what_still_runs_and_removes_the_folder() {
    let place = Place::new("clean");
    let mut run = probed(&place, vec![]);
    let pidfile = place.root.join("pid");
    let spawn = LocalSpawn {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            format!("echo $$ > {}; exec sleep 30", pidfile.display()),
        ],
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (_, op) = run.spawn(&spawn).unwrap();
    let child = start(&op, &place.home(), "", true);
    wait_for("the pid written", || {
        pidfile.exists() && !std::fs::read_to_string(&pidfile).unwrap().is_empty()
    });
    let pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let folder = run.run_folder().to_owned();
    assert!(RemoteRun::finished(
        &run_op(&run.clean().unwrap(), &place.home()).stdout
    ));
    wait_for("the agent ended", || !alive(&pid));
    finish(child);
    assert!(!Path::new(&folder).exists());
}

#[test]
fn a_watched_file_is_read_as_it_grows_until_the_process_ends() {
    let place = Place::new("watch");
    let mut run = probed(&place, vec![]);
    let log = format!("{}/telemetry.log", run.run_folder());
    std::fs::create_dir_all(run.run_folder()).unwrap();
    std::fs::write(&log, "from an earlier process\n").unwrap();
    let script = format!("sleep 0.3; echo one >> {log}; sleep 0.4; echo two >> {log}; sleep 0.3");
    let spawn = LocalSpawn {
        command: "sh".into(),
        args: vec!["-c".into(), script],
        cwd: place.work(),
        ..LocalSpawn::default()
    };
    let (id, op) = run.spawn(&spawn).unwrap();
    let agent = start(&op, &place.home(), "", false);
    let watch = run.watch(
        &id,
        &agent_context::attempt::LogWatch {
            path: log.clone(),
            every_ms: 100,
            keep_bytes: 1 << 20,
        },
    );
    let watcher = start(&watch, &place.home(), "", false);
    let agent = finish(agent);
    assert_eq!(agent.end.exit_code, Some(0), "{}", agent.stderr);
    let watched = finish(watcher);
    assert_eq!(String::from_utf8_lossy(&watched.stdout), "one\ntwo\n");
    run_op(&run.clean().unwrap(), &place.home());
}

#[test]
fn the_file_system_methods_go_through_the_channel() {
    let place = Place::new("fs");
    let run = probed(&place, vec![]);
    let work = place.work();
    std::os::unix::fs::symlink(format!("{work}/real.txt"), format!("{work}/link.txt")).unwrap();
    let resolved = run
        .resolved(&run_op(&run.resolve(&format!("{work}/link.txt")), &place.home()).stdout)
        .unwrap();
    assert_eq!(resolved, format!("{work}/real.txt"));
    let resolved = run
        .resolved(
            &run_op(
                &run.resolve(&format!("{work}/new/dir/f.txt")),
                &place.home(),
            )
            .stdout,
        )
        .unwrap();
    assert_eq!(
        resolved,
        format!("{work}/new/dir/f.txt"),
        "through the nearest existing folder"
    );
    let put = run.put(&format!("{work}/new/dir/f.txt"), "é\\n\nline 2\n");
    assert!(RemoteRun::finished(&run_op(&put, &place.home()).stdout));
    assert_eq!(
        std::fs::read_to_string(format!("{work}/new/dir/f.txt")).unwrap(),
        "é\\n\nline 2\n"
    );
    let got = run.got(&run_op(&run.get(&format!("{work}/new/dir/f.txt")), &place.home()).stdout);
    assert_eq!(got, Ok("é\\n\nline 2\n".to_owned()));
    assert_eq!(
        run.got(&run_op(&run.get(&format!("{work}/none.txt")), &place.home()).stdout),
        Err("ENOENT".to_owned())
    );
    assert_eq!(
        run.got(&run_op(&run.get(&work), &place.home()).stdout),
        Err("EISDIR".to_owned())
    );
}

#[test]
fn a_users_folder_is_listed_for_the_run_home() {
    let place = Place::new("list");
    let run = probed(&place, vec![]);
    let user = place.home().join(".gemini");
    std::fs::create_dir_all(user.join("tmp")).unwrap();
    std::fs::write(user.join("settings.json"), "{\"ui\":{}}").unwrap();
    std::fs::write(user.join(".hidden"), "").unwrap();
    let answer = run_op(
        &run.list(&user.to_string_lossy(), "settings.json"),
        &place.home(),
    );
    let (mut entries, settings) = run.listed(&answer.stdout).unwrap();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<(String, bool)> = entries.into_iter().map(|e| (e.name, e.dir)).collect();
    assert_eq!(
        names,
        vec![
            (".hidden".to_owned(), false),
            ("settings.json".to_owned(), false),
            ("tmp".to_owned(), true)
        ]
    );
    assert_eq!(settings.as_deref(), Some("{\"ui\":{}}"));
}
