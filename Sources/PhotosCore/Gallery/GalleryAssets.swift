/// The stylesheet and script every gallery page links (`gallery.css`, `gallery.js` in DEST),
/// kept here as readable Swift string literals so that the binary carries them (no resource
/// bundle to find at run time). Nothing in them reaches the network: no fonts, no CDN, no
/// framework; every URL a page uses is relative, so a gallery works opened as `file://` and
/// served by any static web server.
public enum GalleryAssets {
    /// `gallery.css`: the light and dark palettes (`prefers-color-scheme`), a grid of
    /// thumbnail cells that reflows from 360 px to 2560 px wide, visible keyboard focus, and
    /// the lightbox dialog. Text colours have a contrast of at least 4.5:1 (WCAG 2.1 SC 1.4.3)
    /// against their background in both palettes: light #1b1b1b and #555555 on #ffffff (17.1 and
    /// 7.5:1), links #0b4ea2 (8.0:1); dark #ececec and #b4b4b4 on #141414 (15.7 and 9.0:1),
    /// links #9cc3ff (10.0:1); the lightbox #f2f2f2 on #000000 (19.3:1).
    public static let css = """
        :root {
          color-scheme: light dark;
          --bg: #ffffff; --fg: #1b1b1b; --muted: #555555; --link: #0b4ea2;
          --cell: #f2f2f2; --focus: #0b4ea2; --tag-bg: #e6e6e6;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #141414; --fg: #ececec; --muted: #b4b4b4; --link: #9cc3ff;
            --cell: #222222; --focus: #9cc3ff; --tag-bg: #333333;
          }
        }
        * { box-sizing: border-box; }
        html { background: var(--bg); color: var(--fg); }
        body {
          margin: 0 auto; max-width: 2560px; padding: 0 12px 24px;
          font: 15px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg);
          overflow-wrap: anywhere;
        }
        a { color: var(--link); }
        a:focus-visible, button:focus-visible {
          outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px;
        }
        header h1 { font-size: 1.5rem; margin: 16px 0 4px; }
        .count, .cap, .group time { color: var(--muted); }
        .count { margin: 0 0 8px; }
        nav.pages ul { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 12px; padding: 0; margin: 8px 0; }
        nav.pages [aria-current] { font-weight: bold; color: var(--fg); }
        h2 { font-size: 1.1rem; margin: 20px 0 8px; }
        ul.grid {
          list-style: none; margin: 0; padding: 0; display: grid; gap: 12px;
          grid-template-columns: repeat(auto-fill, minmax(140px, 1fr));
        }
        ul.grid > li { background: var(--cell); padding: 6px; border-radius: 4px; min-width: 0; }
        a.ph { display: flex; align-items: center; justify-content: center; height: 124px; }
        a.ph img { display: block; max-width: 100%; height: auto; }
        .cap { font-size: 13px; margin-top: 4px; }
        .cap .n { color: var(--fg); display: block; }
        .cap ul { list-style: none; display: flex; flex-wrap: wrap; gap: 4px; padding: 0; margin: 4px 0 0; }
        .cap ul li { background: var(--tag-bg); color: var(--fg); padding: 0 6px; border-radius: 8px; }
        dialog.lb {
          position: fixed; inset: 0; width: auto; height: auto; max-width: none; max-height: none;
          margin: 0; padding: 8px; border: 0; overflow: hidden; background: #000000; color: #f2f2f2;
          /* Swipes are the lightbox's (previous/next), not the browser's history navigation. */
          touch-action: pinch-zoom; overscroll-behavior: contain;
        }
        dialog.lb[open] { display: flex; flex-direction: column; align-items: center; }
        dialog.lb::backdrop { background: #000000; }
        .lb-bar { display: flex; gap: 8px; align-self: stretch; align-items: center; }
        .lb-bar .lb-pos { flex: 1; }
        dialog.lb button, dialog.lb a { color: #f2f2f2; }
        dialog.lb button {
          background: #333333; border: 1px solid #8c8c8c; border-radius: 4px; font: inherit;
          padding: 4px 12px; min-width: 44px; min-height: 36px;
        }
        dialog.lb button:focus-visible, dialog.lb a:focus-visible { outline-color: #f2f2f2; }
        .lb-img { flex: 1; min-height: 0; display: flex; align-items: center; justify-content: center; width: 100%; }
        .lb-img img { max-width: 100%; max-height: 100%; width: auto; height: auto; object-fit: contain; }
        .lb-cap .cap, .lb-cap .cap .n { color: #f2f2f2; }
        .lb-cap .cap ul li { background: #333333; color: #f2f2f2; }
        """

    /// `gallery.js`: the lightbox. Every thumbnail is a link to its display rendition, so the
    /// gallery works without script; with it, a click (or Enter on the focused link) opens a
    /// modal `<dialog>` with the rendition, its caption (a copy of the cell's own nodes: no
    /// markup is ever built from strings), a link to the original, and previous/next (the
    /// buttons, ArrowLeft/ArrowRight, or a horizontal swipe of more than 50 px). Escape (the
    /// dialog's own cancel), the close button or a click beside the image closes it and gives
    /// the focus back to the thumbnail.
    public static let js = """
        (function () {
          'use strict';
          var links = Array.prototype.slice.call(document.querySelectorAll('a.ph'));
          var box = document.getElementById('lb');
          if (!box || !links.length || typeof box.showModal !== 'function') return;
          var img = box.querySelector('.lb-img img');
          var cap = box.querySelector('.lb-cap');
          var pos = box.querySelector('.lb-pos');
          var orig = box.querySelector('.lb-orig');
          var current = -1;

          function show(i) {
            if (i < 0 || i >= links.length) return;
            current = i;
            var a = links[i];
            img.src = a.getAttribute('href');
            img.width = Number(a.dataset.w);
            img.height = Number(a.dataset.h);
            img.alt = a.querySelector('img').alt;
            img.dataset.photo = a.dataset.photo;
            while (cap.firstChild) cap.removeChild(cap.firstChild);
            var caption = a.parentNode.querySelector('.cap');
            if (caption) cap.appendChild(caption.cloneNode(true));
            pos.textContent = (i + 1) + ' / ' + links.length;
            if (a.dataset.orig) {
              orig.href = a.dataset.orig;
              orig.hidden = false;
            } else {
              orig.removeAttribute('href');
              orig.hidden = true;
            }
            if (!box.open) box.showModal();
          }

          links.forEach(function (a, i) {
            a.addEventListener('click', function (event) {
              if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
              event.preventDefault();
              show(i);
            });
          });
          box.querySelector('.lb-prev').addEventListener('click', function () { show(current - 1); });
          box.querySelector('.lb-next').addEventListener('click', function () { show(current + 1); });
          box.querySelector('.lb-close').addEventListener('click', function () { box.close(); });
          box.addEventListener('keydown', function (event) {
            if (event.key === 'ArrowLeft') { show(current - 1); event.preventDefault(); }
            if (event.key === 'ArrowRight') { show(current + 1); event.preventDefault(); }
          });
          box.addEventListener('click', function (event) {
            if (event.target === box || event.target.classList.contains('lb-img')) box.close();
          });
          box.addEventListener('close', function () {
            img.removeAttribute('src');
            if (current >= 0) links[current].focus();
          });
          var startX = null;
          box.addEventListener('touchstart', function (event) {
            startX = event.changedTouches[0].clientX;
          }, { passive: true });
          box.addEventListener('touchend', function (event) {
            if (startX === null) return;
            var dx = event.changedTouches[0].clientX - startX;
            startX = null;
            if (dx > 50) show(current - 1);
            if (dx < -50) show(current + 1);
          });
        })();
        """
}
