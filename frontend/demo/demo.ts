/**
 * The demo store page: drives the embedded widget through window.partchat (the only thing
 * widget.js exposes). "Ask about this part" and the fit box open the widget and send a
 * question built from the page's templates; "Add to cart" only counts, locally.
 */
import type { PartchatApi } from "../src/widget/main";
import { fillQuestion, normaliseModel } from "../src/demo/questions";

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`demo page: #${id} is missing`);
  return el as T;
}

/** window.partchat, once widget.js has run (it is deferred like this module). */
function whenWidget(fn: (api: PartchatApi) => void): void {
  if (window.partchat) fn(window.partchat);
  else window.addEventListener("load", () => window.partchat && fn(window.partchat), { once: true });
}

const product = byId<HTMLElement>("product");
const part = product.dataset.partNumber ?? "";

byId<HTMLButtonElement>("ask-about-part").addEventListener("click", (e) => {
  const template = (e.currentTarget as HTMLElement).dataset.question ?? "";
  whenWidget((api) => api.send(fillQuestion(template, { part })));
});

const fitForm = byId<HTMLFormElement>("fit-form");
const fitInput = byId<HTMLInputElement>("fit-model");
const fitError = byId<HTMLElement>("fit-error");
fitForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const model = normaliseModel(fitInput.value);
  if (!model) {
    fitError.textContent = "Enter your model number, for example WDT780SAEM1.";
    fitInput.setAttribute("aria-invalid", "true");
    fitInput.focus();
    return;
  }
  fitError.textContent = "";
  fitInput.removeAttribute("aria-invalid");
  const template = fitForm.dataset.question ?? "";
  whenWidget((api) => api.send(fillQuestion(template, { part, model })));
});

let inCart = 0;
const cartCount = byId<HTMLElement>("cart-count");
const cartStatus = byId<HTMLElement>("cart-status");
byId<HTMLButtonElement>("add-to-cart").addEventListener("click", () => {
  const qty = Math.max(1, Math.min(99, Number(byId<HTMLInputElement>("qty").value) || 1));
  inCart += qty;
  cartCount.textContent = String(inCart);
  cartStatus.textContent = `Added ${qty} to your cart (demo store: nothing is ordered).`;
});
