use serde_json::json;

use super::channel::{local_command, shell_quote, BOOTSTRAP};
use super::end::{judge, ChannelEnd};
use super::host::RemoteHost;
use super::wire::{escape, read_frames, Frame, Preamble};
use super::*;

fn host(value: serde_json::Value) -> RemoteHost {
    RemoteHost::read(&value, "options.host").unwrap()
}

fn problem(value: serde_json::Value) -> String {
    RemoteHost::read(&value, "options.host")
        .unwrap_err()
        .message()
        .to_owned()
}

#[test]
fn each_channel_is_read_with_its_fields() {
    let ssh = host(
        json!({"ssh": {"host": "build-1", "user": "dev", "port": 2222, "identityFile": "/k/id", "options": ["StrictHostKeyChecking=no"]}}),
    );
    assert_eq!(ssh.name(), "ssh dev@build-1:2222");
    let docker = host(json!({"docker": {"container": "agents", "docker": "podman"}}));
    assert_eq!(docker.name(), "podman container agents");
    let kube = host(json!({"kubernetes": {"pod": "agent-0", "namespace": "ci"}}));
    assert_eq!(kube.name(), "kubernetes pod ci/agent-0");
    assert_eq!(host(json!({"exec": {"function": true}})), RemoteHost::Exec);
}

#[test]
fn a_wrong_field_is_named() {
    assert_eq!(
        problem(json!({"ssh": {"host": "h", "port": 70000}})),
        "options.host.ssh.port must be a whole number from 1 to 65535, got 70000"
    );
    assert_eq!(
        problem(json!({"ssh": {"host": "h", "port": "22"}})),
        "options.host.ssh.port must be a number, got a string"
    );
    assert!(problem(json!({"ssh": {}})).contains("options.host.ssh.host is required"));
    assert!(problem(json!({"ssh": {"host": "-oProxyCommand=x"}}))
        .starts_with("options.host.ssh.host must not start with '-'"));
    assert!(problem(json!({"ssh": {"host": "h", "hostname": "x"}}))
        .starts_with("options.host.ssh.hostname is not an option here"));
    assert!(
        problem(json!({"ssh": {"host": "h", "options": ["ControlPath=/x"]}}))
            .starts_with("options.host.ssh.options[0]: ControlPath is set by the channel itself")
    );
    assert!(problem(json!({"ssh": {"host": "h", "options": ["-v"]}}))
        .starts_with("options.host.ssh.options[0] must be an ssh setting"));
    assert!(problem(json!({"docker": {"user": "u"}}))
        .contains("options.host.docker.container is required"));
    assert!(problem(json!({"kubernetes": {"pod": "p", "namespace": 3}}))
        .contains("options.host.kubernetes.namespace must be a string, got a number"));
    assert_eq!(
        problem(json!({"exec": "sh"})),
        "options.host.exec must be a function (argv, env) => ({ command, args }), got a string"
    );
    assert_eq!(
        problem(json!({"ssh": {"host": "a"}, "docker": {"container": "b"}})),
        "options.host takes one channel, got ssh and docker"
    );
    assert!(problem(json!({})).starts_with("options.host must name its channel"));
    assert!(problem(json!({"sssh": {}})).starts_with("options.host.sssh is not a channel"));
    assert_eq!(
        problem(json!("build-1")),
        "options.host must be an object, got a string"
    );
}

#[test]
fn the_argument_lists_hold_the_bootstrap_and_no_value() {
    let argv = channel::inner_argv("run", "/home/u/.cache/agent-context/runs/run-1", "p1", &[]);
    assert_eq!(
        argv[..3],
        ["sh".to_owned(), "-c".to_owned(), BOOTSTRAP.to_owned()]
    );
    let docker = local_command(
        &host(json!({"docker": {"container": "c1", "user": "node"}})),
        "/ctl",
        argv.clone(),
    );
    let Local::Spawn { command, args } = docker else {
        panic!()
    };
    assert_eq!(command, "docker");
    assert_eq!(
        args[..5],
        ["exec", "-i", "-u", "node", "c1"].map(String::from)
    );
    assert_eq!(args[5..], argv[..]);
    let kube = local_command(
        &host(
            json!({"kubernetes": {"pod": "p", "namespace": "ns", "container": "agent", "context": "prod", "kubectl": "/bin/k"}}),
        ),
        "/ctl",
        argv.clone(),
    );
    let Local::Spawn { command, args } = kube else {
        panic!()
    };
    assert_eq!(command, "/bin/k");
    assert_eq!(
        args[..10],
        [
            "--context",
            "prod",
            "exec",
            "-i",
            "-n",
            "ns",
            "-c",
            "agent",
            "p",
            "--"
        ]
        .map(String::from)
    );
    assert_eq!(args[10..], argv[..]);
    let ssh = local_command(
        &host(json!({"ssh": {"host": "h", "port": 2200, "options": ["UserKnownHostsFile=/k"]}})),
        "/run/ctl",
        argv.clone(),
    );
    let Local::Spawn { command, args } = ssh else {
        panic!()
    };
    assert_eq!(command, "ssh");
    assert_eq!(
        args[..5],
        ["-T", "-o", "UserKnownHostsFile=/k", "-p", "2200"].map(String::from)
    );
    for shared in [
        "ControlMaster=auto",
        "ControlPath=/run/ctl",
        "BatchMode=yes",
    ] {
        assert!(args.iter().any(|a| a == shared), "{shared}");
    }
    let at = args.iter().position(|a| a == "--").unwrap();
    assert_eq!(args[at + 1], "h");
    assert_eq!(args.len(), at + 3, "one command line for the remote shell");
    assert!(args[at + 2].starts_with("sh -c '"));
    assert_eq!(
        local_command(&RemoteHost::Exec, "/ctl", argv.clone()),
        Local::Exec { argv }
    );
}

#[test]
fn quoting_for_the_remote_shell() {
    assert_eq!(shell_quote("run"), "run");
    assert_eq!(shell_quote(""), "''");
    assert_eq!(shell_quote("it's $HOME"), r"'it'\''s $HOME'");
}

#[test]
fn escapes_read_back_by_printf_b() {
    assert_eq!(escape(b"a\\b\nc\0d\te"), r"a\\b\0012c\0000d\0011e");
    assert_eq!(escape("é%".as_bytes()), "é%");
}

#[test]
fn the_preamble_is_records_then_a_dot() {
    let mut p = Preamble::default();
    p.env("KEY", "v 1\n", false);
    p.file("/r/s.json", "{}\n");
    assert_eq!(
        p.finish(),
        "agent-context 1\nE KEY\tv 1\\0012\nF /r/s.json\n{}\\0012\n.\n"
    );
}

#[test]
fn frames_are_read_to_their_end() {
    let frames = read_frames(b"home 5\n/rootout 1 3\na\nbend 0\n").unwrap();
    assert_eq!(
        frames,
        vec![
            Frame {
                tag: "home".into(),
                body: b"/root".to_vec()
            },
            Frame {
                tag: "out 1".into(),
                body: b"a\nb".to_vec()
            },
        ]
    );
    assert!(read_frames(b"home 5\n/ro").is_err());
    assert!(read_frames(b"").is_err());
}

fn frames(text: &[u8]) -> Vec<Frame> {
    read_frames(text).unwrap()
}

#[test]
fn an_agent_that_ended_is_its_status() {
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: Some(3),
            signal: None,
        },
        false,
        Some(&frames(b"exit 1\n3end 0\n")),
        &[],
    );
    assert_eq!(
        (end.exit_code, end.signal.as_deref(), end.transport_lost),
        (Some(3), None, None)
    );
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: Some(137),
            signal: None,
        },
        true,
        Some(&frames(b"exit 3\n137end 0\n")),
        &[],
    );
    assert_eq!(
        (end.exit_code, end.signal.as_deref()),
        (None, Some("SIGKILL"))
    );
    let outputs = ["/r/usage.json".to_owned()];
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: Some(0),
            signal: None,
        },
        false,
        Some(&frames(b"exit 1\n0out 1 2\n{}end 0\n")),
        &outputs,
    );
    assert_eq!(
        end.outputs,
        vec![("/r/usage.json".to_owned(), "{}".to_owned())]
    );
}

#[test]
fn a_cut_channel_is_a_lost_transport() {
    // The ssh client killed: the agent then ended on its stdin's end.
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: None,
            signal: Some("SIGKILL".into()),
        },
        false,
        Some(&frames(b"exit 1\n0end 0\n")),
        &[],
    );
    assert_eq!(end.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(
        end.transport_lost.as_deref(),
        Some("transport_lost: ssh h: the channel's local process was ended by SIGKILL")
    );
    // The channel closed while the agent ran: no status there.
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: Some(255),
            signal: None,
        },
        false,
        Some(&frames(b"lost 0\nend 0\n")),
        &[],
    );
    assert!(end
        .transport_lost
        .unwrap()
        .contains("the channel ended (status 255) before the agent did"));
    // The other side unreachable afterwards.
    let end = judge(
        "ssh h",
        &ChannelEnd {
            exit_code: Some(255),
            signal: None,
        },
        false,
        None,
        &[],
    );
    assert!(end
        .transport_lost
        .unwrap()
        .contains("could not be reached again"));
    let lines = vec!["x".to_owned(), "transport_lost: ssh h: y".to_owned()];
    assert_eq!(transport_lost_in(&lines), Some("transport_lost: ssh h: y"));
    assert_eq!(transport_lost_in(&["transport_lostx".to_owned()]), None);
}

#[test]
fn the_probe_places_the_run_under_the_home_there() {
    let h = host(json!({"docker": {"container": "c"}}));
    let mut run = RemoteRun::new(
        h,
        "/ctl",
        vec![("KEY".into(), "secret-1".into())],
        "run-1-abc",
    )
    .unwrap();
    let op = run.probe(Some("/work"));
    assert!(op.stdin.contains("E KEY\tsecret-1\n"));
    let Local::Spawn { args, .. } = &op.local else {
        panic!()
    };
    assert!(
        !args.iter().any(|a| a.contains("secret-1")),
        "no value in the argument list"
    );
    let probed = run
        .probed(b"home 5\n/rootcd 5\n/workvar HOME 5\n/rootend 0\n", "")
        .unwrap();
    assert_eq!(
        probed.run_folder,
        "/root/.cache/agent-context/runs/run-1-abc"
    );
    assert_eq!(probed.cd, "/work");
    assert_eq!(probed.env, vec![("HOME".to_owned(), "/root".to_owned())]);
    assert_eq!(
        run.probed(b"home 5\n/rootmissing 2\n/wend 0\n", ""),
        Err(ProbeProblem::Cd(
            "does not exist on docker container c: /w".into()
        ))
    );
    assert_eq!(
        run.probed(b"", "Error: No such container: c"),
        Err(ProbeProblem::Unreachable(
            "docker container c could not be reached: Error: No such container: c".into()
        ))
    );
}

#[test]
fn a_spawn_carries_everything_on_stdin() {
    let h = host(json!({"ssh": {"host": "h"}}));
    let mut run = RemoteRun::new(
        h,
        "/ctl",
        vec![("ANTHROPIC_API_KEY".into(), "sk-secret".into())],
        "run-1",
    )
    .unwrap();
    run.probed(b"home 2\n/uend 0\n", "").unwrap();
    run.stage_files(&[crate::launch::invocation::InvocationFile {
        path: "/u/.cache/agent-context/runs/run-1/settings.json".into(),
        content: "{}".into(),
    }]);
    let spawn = LocalSpawn {
        command: "claude".into(),
        args: vec!["-p".into(), "--model".into(), "m".into()],
        env: vec![("MODEL".into(), "m".into())],
        default_env: vec![("DISABLE_X".into(), "1".into())],
        cwd: "/w".into(),
        files: vec![],
        outputs: vec!["/u/.cache/agent-context/runs/run-1/usage.json".into()],
    };
    let (id, op) = run.spawn(&spawn).unwrap();
    assert_eq!(id, "p1");
    let Local::Spawn { args, .. } = &op.local else {
        panic!()
    };
    let line = args.last().unwrap();
    assert!(
        line.ends_with(" agent-context run /u/.cache/agent-context/runs/run-1 p1"),
        "{line}"
    );
    assert!(!line.contains("sk-secret") && !line.contains("--model"));
    let expected = "agent-context 1\nM /u/.cache/agent-context/runs/run-1\nF /u/.cache/agent-context/runs/run-1/settings.json\n{}\nN ssh h\nM /u/.cache/agent-context/runs/run-1\nR /u/.cache/agent-context/runs/run-1/usage.json\nD DISABLE_X\t1\nE ANTHROPIC_API_KEY\tsk-secret\nE MODEL\tm\nC /w\nX claude\nA -p\nA --model\nA m\n.\n";
    assert_eq!(op.stdin, expected);
    assert_eq!(run.spawn(&spawn).unwrap().0, "p2");
}

#[test]
fn names_the_other_side_cannot_set_are_refused() {
    let h = host(json!({"exec": {"function": true}}));
    let err = RemoteRun::new(h, "/ctl", vec![("A-B".into(), "1".into())], "run-1").unwrap_err();
    assert_eq!(err.message(), "options.env.A-B cannot be set on the host's exec channel: not a variable name a POSIX shell can set");
}

#[test]
fn the_exec_answer_is_checked() {
    assert_eq!(
        exec_answer(&json!({"command": "e2b", "args": ["exec", "sb-1"]})).unwrap(),
        Local::Spawn {
            command: "e2b".into(),
            args: vec!["exec".into(), "sb-1".into()]
        }
    );
    assert_eq!(
        exec_answer(&json!({"args": []})).unwrap_err().message(),
        "options.host.exec's answer.command must be a non-empty string, got nothing"
    );
    assert_eq!(
        exec_answer(&json!({"command": "x", "args": [1]}))
            .unwrap_err()
            .message(),
        "options.host.exec's answer.args[0] must be a string, got a number"
    );
}

#[test]
fn the_hosts_requests_name_the_operation_it_builds() {
    let ssh = host(json!({"ssh": {"host": "build-1"}}));
    let run = RemoteRun::new(ssh, "/ctl", Vec::new(), "run-1").unwrap();
    let command = |v: serde_json::Value| run.command(&v);
    // Before the probe there is no folder there to clean.
    assert_eq!(
        command(json!({"type": "clean"})),
        Ok(serde_json::Value::Null)
    );
    assert_eq!(
        command(json!({"type": "kill", "id": "p1", "signal": "TERM"})),
        Ok(run.kill("p1", "TERM").to_json())
    );
    assert_eq!(
        command(json!({"type": "probe", "cd": "/w"})),
        Ok(run.probe(Some("/w")).to_json())
    );
    let shared = command(json!({"type": "endShared"})).unwrap();
    assert_eq!(shared, run.end_shared().unwrap().to_json());
    let reap = json!({"type": "reap", "id": "p1", "outputs": ["/o"]});
    assert_eq!(
        command(reap),
        Ok(run.reap("p1", &["/o".to_owned()]).to_json())
    );
    for (bad, expected) in [
        (
            json!({"type": "nope"}),
            "request.type: no operation is called \"nope\"",
        ),
        (
            json!({"type": "get"}),
            "request.path must be a string, got undefined",
        ),
        (json!([]), "request must be an object, got an array"),
    ] {
        assert_eq!(command(bad).unwrap_err().message(), expected);
    }
}
