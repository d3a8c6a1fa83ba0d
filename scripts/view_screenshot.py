"""Screenshot of a story view page in headless Chromium, as the README and the docs show it.

Usage: .venv/bin/python scripts/view_screenshot.py PAGE.html OUT.png [--scene N] [--focus NAME] [--graph-only]

Opens the page, moves the slider to scene N, finds NAME with the search box and opens its panel,
fits the view to it and its neighbours, then saves the window (about 1280 x 720 CSS pixels), or with
--graph-only just the graph's area, as a PNG of 128 colours (small enough to keep in the repository).
The pictures of the README and docs/story-view.md:

    scripts/dev example && .venv/bin/python scripts/view_screenshot.py out/lizard-people/view.html \
        docs/assets/story-view.png --scene 40 --focus Reggie

    .venv/bin/kgbuild build ../shared/data/stage/English/enc05e4f27bd8448ebaf9883c64aa4d599/script.json \
        -o out/grosse-pointe-blank && .venv/bin/python scripts/view_screenshot.py \
        out/grosse-pointe-blank/view.html docs/assets/story-view-whole.png --graph-only
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from kgbuild.view.browser import headless_chromium, open_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--scene", type=int)
    parser.add_argument("--focus")
    parser.add_argument("--graph-only", action="store_true", help="keep only the graph's area of the window")
    args = parser.parse_args()
    with headless_chromium(width=1280, height=860) as driver:
        open_page(driver, args.page)
        if args.scene:
            driver.execute_script("kgview.setScene(arguments[0])", args.scene)
        if args.focus:
            box = driver.find_element(By.ID, "search")
            box.send_keys(args.focus)
            time.sleep(0.3)
            box.send_keys(Keys.ENTER)
            time.sleep(0.6)  # the camera moves to the entity
            driver.execute_script("const cy = kgview.cy; cy.fit(cy.$(':selected').closedNeighborhood(':visible'), 20)")
            time.sleep(0.3)
        while driver.execute_script("return kgview.labelsPending"):
            time.sleep(0.05)
        shot = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
        if args.graph_only:
            box = driver.execute_script("const r = document.getElementById('graph').getBoundingClientRect(); "
                                        "return [r.left, r.top, r.right, r.bottom, window.devicePixelRatio]")
            shot = shot.crop(tuple(round(v * box[4]) for v in box[:4]))
    args.png.parent.mkdir(parents=True, exist_ok=True)
    shot.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(args.png, optimize=True)


if __name__ == "__main__":
    main()
