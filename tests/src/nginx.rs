//! A real nginx (Debian's package) in front of the replicas a test starts: round robin, no
//! affinity, on a free loopback port, with its files in a directory of its own; stopped when
//! dropped. Missing nginx skips the test with one line (see [`crate::external`]).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running nginx balancing over some upstream addresses.
pub struct Nginx {
    child: Child,
    address: SocketAddr,
    _dir: TempDir,
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `nginx` binary: on PATH, or in /usr/sbin where Debian puts it (outside a user's PATH).
fn nginx_binary() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).map(|dir| dir.join("nginx")).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/sbin/nginx")])
        .find(|path| path.is_file())
        .ok_or_else(|| "nginx is not installed (Debian: apt-get install nginx)".to_owned())
}

/// A free loopback port, as the kernel gives one.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("its address").port()
}

impl Nginx {
    /// nginx on a free port, round robin over `upstreams` (no sticky sessions, no retry of a
    /// request on the next upstream: a request that fails on one replica fails); `None` after
    /// one `SKIPPED` line when nginx is missing.
    pub fn start(test: &str, upstreams: &[SocketAddr], dir: PathBuf) -> Option<Nginx> {
        let binary = crate::external::or_skip(test, nginx_binary())?;
        std::fs::create_dir_all(dir.join("logs")).expect("nginx's directory");
        let port = free_port();
        let servers: String = upstreams.iter().map(|up| format!("        server {up};\n")).collect();
        let config = format!(
            "worker_processes 1;\n\
             pid {dir}/nginx.pid;\n\
             error_log {dir}/logs/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n\
             \x20   access_log off;\n\
             \x20   client_body_temp_path {dir}/body;\n\
             \x20   proxy_temp_path {dir}/proxy;\n\
             \x20   fastcgi_temp_path {dir}/fastcgi;\n\
             \x20   uwsgi_temp_path {dir}/uwsgi;\n\
             \x20   scgi_temp_path {dir}/scgi;\n\
             \x20   upstream replicas {{\n{servers}    }}\n\
             \x20   server {{\n\
             \x20       listen 127.0.0.1:{port};\n\
             \x20       location / {{\n\
             \x20           proxy_pass http://replicas;\n\
             \x20           proxy_http_version 1.1;\n\
             \x20           proxy_set_header Connection \"\";\n\
             \x20           proxy_set_header Host $host;\n\
             \x20           proxy_buffering off;\n\
             \x20           proxy_next_upstream off;\n\
             \x20       }}\n\
             \x20   }}\n\
             }}\n",
            dir = dir.display()
        );
        let path = dir.join("nginx.conf");
        std::fs::write(&path, config).expect("nginx.conf");
        let child = Command::new(binary)
            .args(["-p"])
            .arg(&dir)
            .arg("-c")
            .arg(&path)
            .args(["-g", "daemon off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let address: SocketAddr = ([127, 0, 0, 1], port).into();
        let nginx = Nginx { child, address, _dir: TempDir(dir) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(address).is_err() {
            assert!(Instant::now() < deadline, "nginx did not listen on {address} within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(nginx)
    }

    /// Where nginx listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
