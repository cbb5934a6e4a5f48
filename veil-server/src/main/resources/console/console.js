// The Veil console's only script: copy buttons for a key or secret shown once, and the blanking of
// those values when the page is left, so that going back to it shows no secret.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const status = document.getElementById('copy-status');
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const value = document.getElementById(button.dataset.copy);
      try {
        await navigator.clipboard.writeText(value.textContent);
        if (status) status.textContent = 'Copied.';
      } catch (e) {
        const range = document.createRange();
        range.selectNodeContents(value);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (status) status.textContent = 'Selected: copy it with Ctrl+C.';
      }
    });
  }
});

window.addEventListener('pagehide', () => {
  for (const value of document.querySelectorAll('[data-secret]')) {
    value.textContent = '(no longer shown)';
  }
});
