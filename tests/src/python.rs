//! The Python venv with the official SDKs the interop tests compare with: `TOOL_SDK_PYTHON`
//! (CI), else `target/sdk-venv`, made on first use from `tests/python/requirements.txt`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{self, Command};
use std::sync::OnceLock;

/// The pinned SDKs.
pub const REQUIREMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/requirements.txt");

/// The Python with the SDKs: `TOOL_SDK_PYTHON`, or `target/sdk-venv` (made once), where
/// `target_tmp` is the tests' `CARGO_TARGET_TMPDIR`.
pub fn sdk_python(target_tmp: &Path) -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| match env::var_os("TOOL_SDK_PYTHON") {
            Some(python) => Ok(PathBuf::from(python)),
            None => make_venv(target_tmp),
        })
        .clone()
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// A venv is ready once the copy of the requirements it was made from, written last, matches.
fn venv_ready(venv: &Path, requirements: &str) -> bool {
    fs::read_to_string(venv.join("requirements.txt")).is_ok_and(|made_from| made_from == requirements)
}

/// Makes `target/sdk-venv`: built under a name of this process's own, then renamed into place,
/// so concurrent test runs never share a half-made venv (the loser of the rename uses the
/// winner's). A venv made from other pins is replaced.
fn make_venv(target_tmp: &Path) -> Result<PathBuf, String> {
    let target = target_tmp.parent().expect("CARGO_TARGET_TMPDIR is target/tmp");
    let venv = target.join("sdk-venv");
    let requirements = fs::read_to_string(REQUIREMENTS).map_err(|e| format!("{REQUIREMENTS}: {e}"))?;
    if venv_ready(&venv, &requirements) {
        return Ok(venv_python(&venv));
    }
    let build = target.join(format!("sdk-venv.build-{}", process::id()));
    let _ = fs::remove_dir_all(&build);
    let made = build_venv(&build, &requirements);
    if made.is_err() {
        let _ = fs::remove_dir_all(&build);
    }
    made?;
    for _ in 0..3 {
        if fs::rename(&build, &venv).is_ok() {
            return Ok(venv_python(&venv));
        }
        if venv_ready(&venv, &requirements) {
            let _ = fs::remove_dir_all(&build);
            return Ok(venv_python(&venv));
        }
        // Made from other pins: moved aside (atomically), then removed.
        let stale = target.join(format!("sdk-venv.stale-{}", process::id()));
        if fs::rename(&venv, &stale).is_ok() {
            let _ = fs::remove_dir_all(&stale);
        }
    }
    Err(format!("could not put the venv built in {} at {}", build.display(), venv.display()))
}

/// A venv with the pinned SDKs at `build`; its copy of the requirements written last.
fn build_venv(build: &Path, requirements: &str) -> Result<(), String> {
    let base = if cfg!(windows) { "python" } else { "python3" };
    run(Command::new(base).args(["-m", "venv"]).arg(build), "python3 -m venv").map_err(|e| {
        format!(
            "the SDK comparison needs Python 3.11+ with venv and pip (on Debian/Ubuntu: \
             `apt-get install -y python3 python3-venv`), or TOOL_SDK_PYTHON set to a python that \
             has tests/python/requirements.txt installed: {e}"
        )
    })?;
    run(
        Command::new(venv_python(build))
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q", "-r"])
            .arg(REQUIREMENTS),
        "pip install -r tests/python/requirements.txt",
    )?;
    fs::write(build.join("requirements.txt"), requirements).map_err(|e| e.to_string())
}

/// Runs `command`, its standard output on success, else what it printed.
pub fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command.output().map_err(|e| format!("`{what}` could not start: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        Ok(stdout)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(format!("`{what}` failed ({}):\n{stderr}{stdout}", output.status))
    }
}
