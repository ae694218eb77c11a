"""What every step shares: the one error type, printing, the download cache, verified
and atomic file writes, running a command."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path



class BuildError(Exception):
    """A failure with a one-line message that says what to do."""


def say(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(msg, flush=True)


# ------------------------------------------------------------------------ helpers


def cache_dir() -> Path:
    """The download cache: $POOLGRAD_CACHE, else $XDG_CACHE_HOME/poolgrad, else ~/.cache/poolgrad."""
    env = os.environ.get("POOLGRAD_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "poolgrad"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_file(path: Path, expected: str, what: str | None = None) -> None:
    """Raise BuildError unless ``path`` exists and its sha256 is ``expected``."""
    path = Path(path)
    what = what or path.name
    if not path.is_file():
        raise BuildError(f"{what}: missing file {path}")
    actual = sha256_of(path)
    if actual != expected:
        raise BuildError(
            f"pin mismatch for {what}: {path} has sha256 {actual}, expected {expected}; "
            f"delete it to download it again (if it persists, the upstream file changed: do not ship it)"
        )


def matches(path: Path, expected: str) -> bool:
    return path.is_file() and sha256_of(path) == expected


def atomic_write_bytes(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_if_changed(dest: Path, data: bytes) -> bool:
    """Write ``data`` to ``dest`` unless it already holds exactly that; True if written."""
    if dest.is_file() and dest.stat().st_size == len(data) and dest.read_bytes() == data:
        return False
    atomic_write_bytes(dest, data)
    return True


def copy_if_changed(src: Path, dest: Path) -> bool:
    """Copy ``src`` to ``dest`` unless ``dest`` already holds the same bytes; True if copied."""
    if dest.is_file() and dest.stat().st_size == src.stat().st_size and dest.read_bytes() == src.read_bytes():
        return False
    copy_file(src, dest)
    return True


def copy_file(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()


def last_output_line(proc: subprocess.CompletedProcess) -> str:
    r"""What a failed command said: the last line of its error output (else of its output),
    at most 200 characters.

    >>> last_output_line(subprocess.CompletedProcess(["node"], 1, stdout="", stderr="at x\nError: boom\n"))
    'Error: boom'
    """
    lines = (proc.stderr or proc.stdout or "").strip().splitlines() or ["no output"]
    return lines[-1][:200]


def run(cmd: list[str], what: str, quiet: bool, cwd: Path | None = None, capture: bool = False,
         env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command; on failure raise a one-line BuildError (its output shown above it)."""
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=env, text=True,
            stdout=subprocess.PIPE if (quiet or capture) else None,
            stderr=subprocess.STDOUT if (quiet or capture) else None,
        )
    except FileNotFoundError:
        raise BuildError(f"{what}: command not found: {cmd[0]}") from None
    if proc.returncode != 0:
        if proc.stdout:
            tail = "\n".join(proc.stdout.strip().splitlines()[-15:])
            print(tail, file=sys.stderr)
        raise BuildError(f"{what} failed (exit {proc.returncode}); see the output above")
    return proc


def check_pip() -> None:
    probe = subprocess.run([sys.executable, "-m", "pip", "--version"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        raise BuildError(
            f"pip is not available for {sys.executable}: install it (python -m ensurepip, "
            f"or apt-get install python3-pip) and run again"
        )
