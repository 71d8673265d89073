"""The study page in Chromium, on the real ``pisa3d study serve``: done by keyboard alone from consent to
the debrief (every answer on disk as typed, no label shown before the end but a practice trial's
feedback), by touch at a phone's size, withdrawn from the bar; and the one-file offline page run
with no server, its responses saved to a downloaded file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pisa3d.study.offline import export_offline, page_data
from pisa3d.study.responses import read_lines, read_responses
from tests.playwright_chromium import chromium_browser, new_page
from tests.study.handmade import StudyServer, answer_by_keyboard, current_step, write_study

LABEL_WORDS = ("fell", "stood")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_browser() as launched:
        yield launched


def watch(page: Any) -> list[str]:
    """The page's errors, as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def only_lines(root: Path) -> list[dict[str, Any]]:
    files = list((root / "responses").glob("p-*.jsonl"))
    assert len(files) == 1
    return read_lines(files[0])


def test_a_study_is_done_by_keyboard_alone_and_every_answer_is_on_disk(browser: Any, tmp_path: Path) -> None:
    root = write_study(tmp_path / "study", view="orbit")
    with StudyServer(root) as server:
        page = new_page(browser, 1280, 800)
        errors = watch(page)
        page.goto(server.url + "/")
        shown_before_end: list[str] = []
        answered = answer_by_keyboard(page, rating_of=lambda k: 7 - k, on_step=lambda name, text:
                                      shown_before_end.append(text) if name not in ("feedback", "end") else None)
        end = page.locator("[data-page=end]")
        end.locator("table.debrief").wait_for()
        assert len(end.locator("tbody tr").all()) == 4  # the main and catch towers, with the person's answers
        assert page.locator("text=Your answers are saved").is_visible()
    assert [trial for trial, _ in answered][:2] == ["t-001", "t-002"]
    lines = only_lines(root)
    assert [e["event"] for e in lines] == ["start", "consent"] + ["response"] * 6 + ["finish"]
    assert [(e["trial"], e["rating"]) for e in lines[2:8]] == answered
    assert all(e["rt_ms"] > 0 and e["direction"] is None for e in lines[2:8])
    for text in shown_before_end:  # consent, instructions, the trials, "practice over": no label anywhere
        assert not any(word in text.lower() for word in LABEL_WORDS), text
    assert errors == []


def test_at_a_phone_size_the_study_is_done_by_touch(browser: Any, tmp_path: Path) -> None:
    root = write_study(tmp_path / "study", ask_direction=True)
    with StudyServer(root) as server:
        page = new_page(browser, 390, 844, has_touch=True, is_mobile=True)
        errors = watch(page)
        page.goto(server.url + "/")
        page.locator("[data-page=consent] button", has_text="I agree").tap()
        page.locator("[data-page=instructions] button", has_text="Start").tap()
        trial = page.locator(".study-trial")
        trial.wait_for()
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390  # nothing sticks out sideways
        for button in [*trial.locator("button.rating").all(), trial.locator("button.next")]:
            box = button.bounding_box()
            assert box["height"] >= 44 and box["width"] >= 40 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert trial.locator("button.next").bounding_box()["y"] < 844  # the whole trial fits the screen
        assert trial.locator("button.next").is_disabled()
        trial.locator("button.rating", has_text="3").tap()
        assert trial.locator("button.next").is_disabled()  # which way, too
        trial.locator("button.direction", has_text="W").tap()
        trial.locator("button.next").tap()
        page.locator("[data-page=feedback]").wait_for()
        page.screenshot(path=str(tmp_path / "phone.png"))
    assert [(e["trial"], e["rating"], e["direction"]) for e in only_lines(root)
            if e["event"] == "response"] == [("t-001", 3, "W")]
    assert errors == []


def test_withdrawing_from_the_bar_deletes_the_answers(browser: Any, tmp_path: Path) -> None:
    root = write_study(tmp_path / "study")
    with StudyServer(root) as server:
        page = new_page(browser, 1280, 800)
        page.goto(server.url + "/")
        answer_by_keyboard(page, stop_after=2)
        assert len(read_responses(root)) == 2
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#withdraw").click()
        page.locator("[data-page=withdrawn]").wait_for()
        assert list((root / "responses").iterdir()) == [] and list((root / "participants").iterdir()) == []
        assert page.evaluate("() => localStorage.getItem('pisa3d-study')") is None
        other = new_page(browser, 1280, 800)  # someone else, who does not agree: nothing is kept of them
        other.goto(server.url + "/")
        other.locator("[data-page=consent] button", has_text="I do not agree").click()
        other.locator("[data-page=declined]").wait_for()
        assert list((root / "responses").iterdir()) == [] and list((root / "participants").iterdir()) == []


def test_the_offline_page_runs_without_a_server_and_saves_a_file(browser: Any, tmp_path: Path) -> None:
    root = write_study(tmp_path / "study", ask_direction=True)
    out = export_offline(root, tmp_path / "offline.html")
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["practice_fell"] == {"t-001": False, "t-002": True}  # the only labels it holds
    assert "fell" not in json.dumps({k: v for k, v in data.items() if k != "practice_fell"})
    page = new_page(browser, 1280, 800, accept_downloads=True)
    errors = watch(page)
    page.goto(out.as_uri())
    with page.expect_download() as download:
        answered = answer_by_keyboard(page, direction_key="ArrowDown")
    saved = json.loads(Path(download.value.path()).read_text())
    assert download.value.suggested_filename == f"pisa3d-study-{data['study_id']}-{saved['participant']}.json"
    assert saved["format"] == "pisa3d-study-responses/1" and saved["study_hash"] == data["hash"]
    events = saved["events"]
    assert [e["event"] for e in events] == ["start", "consent"] + ["response"] * 6 + ["finish"]
    assert [(e["trial"], e["rating"]) for e in events[2:8]] == answered
    assert {e["trial"] for e in events[2:8]} == {f"t-00{k}" for k in range(1, 7)}
    assert {e["direction"] for e in events[2:8]} == {"S"}
    assert events[0]["texts_sha256"] == data["texts_sha256"]
    (root / "offline").mkdir()  # the lab collects the file into the study: the report reads it with the rest
    Path(download.value.path()).rename(root / "offline" / download.value.suggested_filename)
    assert [(r["trial"], r["rating"], r["participant"]) for r in read_responses(root)] == [
        (trial, rating, saved["participant"]) for trial, rating in answered]
    assert current_step(page)[1] == "end"
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#withdraw").click()  # after the file was saved: the page says to delete it too
    page.locator("[data-page=withdrawn]", has_text="Delete the file").wait_for()
    assert page.evaluate("() => localStorage.length") == 0
    assert errors == []


@pytest.mark.slow
def test_a_study_built_from_a_dataset_is_done_by_keyboard(browser: Any, study_copy: Path) -> None:
    """The tiny dataset's built study (12 trials, real towers), from consent to the debrief."""
    with StudyServer(study_copy) as server:
        page = new_page(browser, 1280, 800)
        errors = watch(page)
        page.goto(server.url + "/")
        answered = answer_by_keyboard(page)
        page.locator("[data-page=end] table.debrief").wait_for()
    public = json.loads((study_copy / "study.json").read_text())
    assert sorted(trial for trial, _ in answered) == sorted(t["trial"] for t in public["trials"])
    assert len(read_responses(study_copy)) == len(public["trials"])
    assert errors == []
