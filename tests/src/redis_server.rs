//! A real `redis-server` (Debian's `redis-server` package; `.ci/run` installs it) for the tests
//! of the Redis store: one per test, on a free port of 127.0.0.1, persisting nothing
//! (`--save "" --appendonly no`), killed when dropped. It can be stopped and started again on
//! the same port, for the tests of a store that fails closed and recovers.
//!
//! Where `redis-server` is missing (not at `TOOL_REDIS_SERVER`, nor on `PATH`), the test skips
//! with one `SKIPPED` line, or fails under `TOOL_TESTS_REQUIRE_EXTERNAL=1`
//! ([`crate::external::or_skip`]).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to answer its first `PING`.
const START: Duration = Duration::from_secs(10);

/// A `redis-server` of this test's own.
#[derive(Debug)]
pub struct RedisServer {
    program: PathBuf,
    port: u16,
    args: Vec<String>,
    child: Option<Child>,
}

impl RedisServer {
    /// A server for `test` (its name, for the `SKIPPED` line), answering `PING`; `None` after
    /// the line when there is no `redis-server`.
    pub fn start(test: &str) -> Option<RedisServer> {
        RedisServer::start_with(test, &[])
    }

    /// A server for `test` and a `RedisStore` connected to it with the default prefix and
    /// timeout; `None` after the `SKIPPED` line when there is no `redis-server`.
    pub async fn with_store(test: &str) -> Option<(RedisServer, tool_core::state::SharedStore)> {
        let server = RedisServer::start(test)?;
        let store =
            tool_core::state::RedisStore::builder(server.url()).connect().await.expect("the test's redis-server");
        Some((server, std::sync::Arc::new(store)))
    }

    /// A server started with more arguments (`["--requirepass", "secret"]`).
    pub fn start_with(test: &str, args: &[&str]) -> Option<RedisServer> {
        let program = crate::external::or_skip(test, find())?;
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        // A free port may be taken between our look and the server's bind: another is tried.
        let mut last = String::new();
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let mut server = RedisServer { program: program.clone(), port, args: args.clone(), child: None };
            match server.launch() {
                Ok(()) => return Some(server),
                Err(why) => last = why,
            }
        }
        panic!("{test}: redis-server did not start: {last}");
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The server's process id while it runs (to pause it with `SIGSTOP`: a server that
    /// accepts connections and answers nothing).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the server (it keeps nothing) and waits for it to exit: its port then refuses
    /// connections.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, empty, once it answers `PING`.
    pub fn start_again(&mut self) {
        self.stop();
        // The old socket may linger a moment before the port can be bound again.
        let started = Instant::now();
        loop {
            match self.launch() {
                Ok(()) => return,
                Err(why) if started.elapsed() > START => panic!("redis-server did not start again: {why}"),
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    fn launch(&mut self) -> Result<(), String> {
        let mut child = Command::new(&self.program)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string(), "--save", "", "--appendonly", "no"])
            .args(["--dir", &std::env::temp_dir().display().to_string()])
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", self.program.display()))?;
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("it exited ({status}) on port {}", self.port));
            }
            if answers_ping(self.port, &self.args) {
                self.child = Some(child);
                return Ok(());
            }
            if started.elapsed() > START {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no PONG on port {} within {START:?}", self.port));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `redis-server` at `TOOL_REDIS_SERVER`, else on `PATH`.
fn find() -> Result<PathBuf, String> {
    crate::external::program("TOOL_REDIS_SERVER", &["redis-server"])
        .map(PathBuf::from)
        .map_err(|e| format!("{e}; install Debian's redis-server (`apt-get install redis-server`, as .ci/run does)"))
}

/// Whether a server on `port` answers `PING` (with the password among `args`, if any).
fn answers_ping(port: u16, args: &[String]) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let password = args.iter().position(|arg| arg == "--requirepass").and_then(|i| args.get(i + 1));
    let mut request = String::new();
    let mut answers = 1;
    if let Some(password) = password {
        request.push_str(&format!("AUTH {password}\r\n"));
        answers += 1;
    }
    request.push_str("PING\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut got = Vec::new();
    let mut buffer = [0u8; 64];
    while got.iter().filter(|byte| **byte == b'\n').count() < answers {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return false,
            Ok(n) => got.extend_from_slice(&buffer[..n]),
        }
    }
    got.ends_with(b"+PONG\r\n")
}

/// `#[tokio::test]`s that run checks written as `async fn check(store: SharedStore)` on a real
/// Redis of their own: `redis_tests!(redis_x => check_x, ..)`. Each skips with one `SKIPPED`
/// line when there is no `redis-server` (and fails under `TOOL_TESTS_REQUIRE_EXTERNAL=1`).
#[macro_export]
macro_rules! redis_tests {
    ($($test:ident => $check:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn $test() {
            let test = concat!(module_path!(), "::", stringify!($test));
            let Some((_server, store)) = $crate::redis_server::RedisServer::with_store(test).await else { return };
            $check(store).await;
        }
    )*};
}
