// Downloads of what is on screen: text files, and an SVG element as .svg or
// .png. The SVG views set their colours and fonts as attributes, so a clone
// serialized on its own looks the same as on the page.
import { UI } from './palette.mjs';
import { SVG_NS } from './dom.mjs';

export function downloadBlob(blob, fileName) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: fileName });
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked on a later task: Chromium starts the download from the click asynchronously.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadText(text, fileName, type) {
  downloadBlob(new Blob([text], { type: `${type};charset=utf-8` }), fileName);
}

/** A standalone SVG document of an element on the page (white background, explicit size). */
export function svgDocument(svg) {
  const clone = svg.cloneNode(true);
  const { width, height } = svg.viewBox.baseVal;
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  clone.removeAttribute('tabindex');
  clone.removeAttribute('class');
  // Sticky labels (lib/sticky.mjs) go back to their places; the file says which language its text is in.
  for (const node of clone.querySelectorAll('[data-sticky]')) node.removeAttribute('transform');
  for (const node of clone.querySelectorAll('[data-page-only]')) node.remove();
  clone.setAttribute('lang', document.documentElement.lang);
  const background = document.createElementNS(SVG_NS, 'rect');
  for (const [k, v] of Object.entries({ width: '100%', height: '100%', fill: UI.paper })) background.setAttribute(k, v);
  clone.prepend(background);
  return {
    text: `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`,
    width,
    height,
  };
}

export function downloadSvg(svg, fileName) {
  downloadText(svgDocument(svg).text, fileName, 'image/svg+xml');
}

/** Renders the SVG at 2× into a canvas and downloads it as PNG (fonts: the system's). */
export async function downloadPng(svg, fileName) {
  const { text, width, height } = svgDocument(svg);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = 2;
    const canvas = Object.assign(document.createElement('canvas'), { width: width * scale, height: height * scale });
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    downloadBlob(blob, fileName);
  } finally {
    URL.revokeObjectURL(url);
  }
}
