"""Text from transcripts is data: markup in names, claims, memories, compiled truths and
queries is shown escaped on every console page, never run."""

from __future__ import annotations

from django.test import Client

from memory.admin.markdown import markdown_html
from tests.console.conftest import HOSTILE, NOW, compiled, entity, fact, memory, relation

INJECTED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
DOCUMENT = (f"# {HOSTILE}\n\n- a claim `{HOSTILE}`\n- [click](javascript:alert(1))\n"
            f"- **<img src=x onerror=alert(1)>**\n\n```\n{HOSTILE}\n```\n"
            f'<a href="javascript:alert(2)">raw html</a>\n')


def _assert_escaped(html: str, *, shown: bool = True) -> None:
    assert HOSTILE not in html
    assert "<img src=x" not in html
    assert 'href="javascript:' not in html
    if shown:
        assert "&lt;script&gt;" in html or "&lt;b&gt;rel&lt;/b&gt;" in html


def test_the_markdown_renderer_escapes_before_it_marks_up() -> None:
    html = str(markdown_html(DOCUMENT))
    _assert_escaped(html)
    assert f"<h1>{INJECTED}</h1>" in html
    assert f"<li>a claim <code>{INJECTED}</code></li>" in html
    assert "<li><strong>&lt;img src=x onerror=alert(1)&gt;</strong></li>" in html
    assert "<li>[click](javascript:alert(1))</li>" in html  # links are not rendered
    assert f"<pre><code>{INJECTED}</code></pre>" in html


def test_every_console_page_escapes_hostile_text(operator: Client, db: None) -> None:
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    evil = entity(HOSTILE)
    other = entity(f"other {HOSTILE}")
    relation(evil, other, "<b>rel</b>", at=NOW)
    claim = fact(evil, f"claim {HOSTILE}")
    stored = memory(f"memory {HOSTILE}", mentions=(evil,))
    versions = compiled(evil, f"# v1 {HOSTILE}\n", DOCUMENT)
    for url in ("/admin/", "/admin/memory/compiledtruth/"):  # show keys, not the text
        _assert_escaped(operator.get(url).content.decode(), shown=False)
    pages = [
        f"/admin/memory/entity/{evil.pk}/change/",
        f"/admin/memory/entity/{evil.pk}/compiled-diff/?old=1&new=2",
        "/admin/memory/entity/",
        f"/admin/memory/entity/recall/?q={HOSTILE}",
        f"/admin/memory/entity/recall/?q=memory+{HOSTILE}&unit=memory",
        "/admin/memory/relation/",
        "/admin/memory/fact/",
        f"/admin/memory/fact/{claim.pk}/change/",
        "/admin/memory/memory/",
        f"/admin/memory/memory/{stored.pk}/change/",
        f"/admin/memory/compiledtruth/{versions[1].pk}/change/",
    ]
    for url in pages:
        response = operator.get(url)
        assert response.status_code == 200, url
        _assert_escaped(response.content.decode())
    assert "&lt;b&gt;rel&lt;/b&gt;" in operator.get(
        f"/admin/memory/entity/{evil.pk}/change/").content.decode()
