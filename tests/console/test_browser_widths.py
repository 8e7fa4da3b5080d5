"""Every console page reads at a normal width: in a real browser (Playwright driving Debian's
Chromium) at 1280x800 and at 1920x1080, over the graph `cortex demo` leaves, no page is wider
than the window, nothing is cut off on the right inside it (a table in a box that hides or
scrolls what does not fit), and no column header or heading is broken inside a word.

The screenshots are kept: `<pytest basetemp>/artifacts/console/<width>x<height>/<page>.png`
(pytest keeps the last three basetemps, e.g. /tmp/pytest-of-$USER/pytest-N/), or under
`$CORTEX_TEST_ARTIFACTS/console/` when that is set."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.urls import NoReverseMatch, reverse

from insight.demo.run import demo_run
from memory.models import CompiledTruth

CHROMIUM = "/usr/bin/chromium"
SIZES = ((1280, 800), (1920, 1080))

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM), reason="no Debian chromium")

# What a reader would call cut off or broken, measured in the page: the document wider than
# the window; a box that clips or scrolls sideways holding more than it shows; a heading or
# a column header with a word split across two lines; a raw float or a "fact(s)" in the
# console's own text.
MEASURE = """() => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim()
          .split(/\\s+/).join('.') : '');
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) {
    problems.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
  }
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (!['auto', 'scroll', 'hidden', 'clip'].includes(style.overflowX)) continue;
    if (el.clientWidth < 2 || el.closest('.visually-hidden')) continue;
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) continue;  // a field scrolls
    // an icon whose label is moved out of sight on purpose (Django's selector buttons)
    if (parseFloat(style.textIndent) < -100) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name(el)} cuts off ${el.scrollWidth - el.clientWidth} px on the right`);
    }
  }
  const words = /[\\p{L}\\p{N}]+/gu;
  const columnHeader = (el) => el.tagName !== 'TH' || el.closest('thead') !== null ||
      el.parentElement === el.closest('table').rows[0];
  for (const el of document.querySelectorAll('th, h1, h2, h3, caption, legend')) {
    if (!el.getClientRects().length || !columnHeader(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(words)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
                                                          .map(r => Math.round(r.top)));
        if (lines.size > 1) {
          problems.push(`${name(el)}: "${match[0]}" is broken over ${lines.size} lines`);
        }
      }
    }
  }
  // What the console says in its own words (not a payload quoted in a <pre>, not a
  // drawing): no raw float, no "fact(s)".
  const own = document.body.cloneNode(true);
  own.querySelectorAll('pre, svg, script, style, textarea, input').forEach(e => e.remove());
  const text = own.textContent;
  for (const raw of text.match(/\\b\\d+\\.\\d{5,}/g) || []) problems.push(`a raw float ${raw}`);
  for (const plural of text.match(/\\w+\\((s|ies)\\)/g) || []) problems.push(`"${plural}"`);
  return problems;
}"""


def _artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = os.environ.get("CORTEX_TEST_ARTIFACTS")
    base = Path(root) if root else tmp_path_factory.getbasetemp() / "artifacts"
    folder = base / "console"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """git with a fresh HOME and global config (the demo's proposals commit)."""
    home = tmp_path / "home"
    home.mkdir()
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = Operator\n\temail = operator@example.com\n"
                      "[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return home


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def _url(name: str, *args: Any) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _model_pages(model: type[Model]) -> list[tuple[str, str]]:
    """(name, path) of a model's list and of the page of its first row."""
    meta = model._meta
    base = f"admin:{meta.app_label}_{meta.model_name}"
    pages = []
    if listing := _url(f"{base}_changelist"):
        pages.append((f"{meta.app_label}-{meta.model_name}-list", listing))
    first = model._default_manager.order_by("pk").first()
    if first is not None and (page := _url(f"{base}_change", first.pk)):
        pages.append((f"{meta.app_label}-{meta.model_name}-page", page))
    return pages


def console_pages() -> list[tuple[str, str]]:
    """Every page of the console: the dashboard, each list and one page of each model it
    shows (memory's and actuation's, and the schedule, users and tokens the operator edits
    there too), the recall box (entities, memories) and a compiled-truth diff."""
    pages = [("dashboard", reverse("admin:index"))]
    for model in sorted(admin.site._registry, key=lambda m: m._meta.label):
        pages += _model_pages(model)
    recall = reverse("admin:memory_entity_recall")
    pages += [("recall-entities", f"{recall}?q=which+package+manager+should+I+use"),
              ("recall-memories", f"{recall}?q=requests+httpx&unit=memory&include_faded=1")]
    compiled = CompiledTruth.objects.order_by("entity_id", "version").first()
    if compiled is not None:
        diff = reverse("admin:memory_entity_compiled_diff", args=[compiled.entity_id])
        pages.append(("compiled-diff", f"{diff}?old=1&new={compiled.version}"))
    return pages


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", name.lower())


@pytest.mark.django_db(transaction=True)
def test_every_console_page_reads_at_1280_and_1920(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, git_home: Path,
        live_server: Any, browser: Any) -> None:
    demo_run(out=tmp_path / "demo")
    get_user_model().objects.create_user("op", "op@example.org", "pw", is_staff=True,
                                         is_superuser=True)
    pages = console_pages()
    names = {name for name, _ in pages}
    assert {"dashboard", "memory-entity-list", "memory-entity-page", "memory-conflict-list",
            "actuation-proposal-page", "recall-entities", "compiled-diff",
            "django_celery_beat-periodictask-page", "auth-user-page"} <= names
    artifacts = _artifacts(tmp_path_factory)
    problems: dict[str, list[str]] = {}
    for width, height in SIZES:
        folder = artifacts / f"{width}x{height}"
        folder.mkdir(exist_ok=True)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "op")
        page.fill("#id_password", "pw")
        page.click("input[type=submit]")
        page.wait_for_selector("#cortex-dashboard")
        page.wait_for_selector("#doctor-problems")  # the health report, measured as the rest
        page.wait_for_selector("#cortex-doctor")
        for name, path in pages:
            response = page.goto(f"{live_server.url}{path}")
            assert response is not None and response.status == 200, (name, path)
            page.screenshot(path=str(folder / f"{_slug(name)}.png"), full_page=True)
            if found := page.evaluate(MEASURE):
                problems[f"{name} at {width}x{height} ({path})"] = found
        page.close()
    assert not problems, "\n".join(f"{page}: {'; '.join(found[:6])}"
                                   for page, found in problems.items())
