"""Debian's Chromium, driven by Playwright, for the tests that need a real
browser (the viewer's and the web site's) and the screenshot scripts."""

import os
import shutil
import subprocess

import pytest

# Nothing the browser does by itself may reach the network during a test.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    # CI (.ci/run) has already tried to install it; elsewhere, try once as root.
    if os.environ.get("CI") != "true" and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        try:
            subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=180)
            subprocess.run(
                ["apt-get", "install", "-y", "-qq", "chromium"],
                env=env,
                capture_output=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            pass
        found = shutil.which("chromium")
        if found:
            return found
    pytest.skip(
        "Chromium is not installed and could not be installed here "
        "(as root: apt-get install chromium)"
    )


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (skipped where there is none)."""
    playwright = pytest.importorskip(
        "playwright.sync_api", reason="playwright (a dev dependency) is missing"
    )
    executable = chromium()
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=ARGS)
        yield b
        b.close()
