"""Causal-LM continuation scoring: per-token log-probs of continuations given contexts.

How it stays fast without changing the numbers:

* **Shared contexts run once.** Requests are grouped by their encoded context. Each distinct context is run once
  and its KV cache is copied, row by row, to every continuation of that context (phase 2).
* **Shared prefixes run once.** Distinct contexts often differ only at the end: the same item asked with each
  option, or under each label permutation, or after the same chat preamble. Contexts are sorted by their token ids
  and neighbours are grouped while the tokens saved outweigh what a shorter shared prefix loses
  (:func:`shared_prefix_groups`). A group's common prefix is run once (phase 0), then each context's remaining
  tokens run on a copy of the prefix's KV cache (phase 1). A group of one is a context run whole, as before.
* **Batched by length.** Prefixes are sorted by length and packed into batches under a token budget (left-padded,
  explicit position ids); the remaining tokens are right-padded after the prefix, so each row's real tokens stay
  contiguous (sliding-window attention sees the same neighbours) and results do not depend on the batch size.
* **The LM head only where needed.** Phases 0 and 1 project only each context's last position onto the vocabulary;
  phase 2 only the continuation positions whose next token is scored. For a 262k-word vocabulary this is most of
  the cost.

* **Out of memory, halve and retry.** A CUDA out-of-memory error in a batch halves the token budget (logged) and
  runs that batch again in smaller pieces; results do not depend on the budget.
* **Split models.** A model spread over devices (accelerate's device map) gets its inputs on the input
  embeddings' device; each layer's cache rows are selected on that layer's device; log-probs are read where the
  head leaves them.

``score_naive`` (also the scorer's method of that name) is the reference: one full forward per request, the LM head
everywhere, on the model's own device.
Tests require the engine to match it per token within ``logprob_tolerance(dtype, device)``: 1e-5 in fp32 on a
CPU, looser where the arithmetic is (GPU fp32 kernels, half precision).

The engine passes a per-row (2-D) ``logits_to_keep`` to the model, which transformers supports from
``MIN_TRANSFORMERS`` on; an older transformers is refused when a scorer is built, naming both versions.
"""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch
from transformers import DynamicCache, PreTrainedModel, PreTrainedTokenizerBase

from choicelab.lm.budget import AUTO, is_out_of_memory, token_budget
from choicelab.lm.requests import ContinuationRequest, ContinuationScore, Generation
from choicelab.lm.tokenization import EncodedRequest, RequestEncoder, left_padded

log = logging.getLogger(__name__)


MIN_TRANSFORMERS = "5.23.0"


def check_transformers_version(installed: str | None = None) -> None:
    """Refuse a transformers older than ``MIN_TRANSFORMERS``: older versions accept only an int or 1-D
    ``logits_to_keep`` and fail inside the model with ``IndexError: too many indices for tensor of dimension 3``."""
    from packaging.version import Version

    if installed is None:
        import transformers

        installed = transformers.__version__
    if Version(installed) < Version(MIN_TRANSFORMERS):
        raise RuntimeError(
            f"choicelab's scoring engine needs transformers >= {MIN_TRANSFORMERS} (per-row logits_to_keep); "
            f"this environment has transformers {installed}. Install the pinned version: "
            f"pip install 'transformers=={MIN_TRANSFORMERS}' (pyproject.toml and envs/ pin it)."
        )


def logprob_tolerance(dtype: torch.dtype, device: torch.device | str) -> float:
    """Largest per-token log-prob difference expected between two correct scorers of the same model (the engine
    and ``score_naive``: other batch shapes, other kernels). fp32 on a CPU: 1e-5; fp32 on a GPU: 1e-4 (cuBLAS and
    attention kernels reorder sums; 2.1e-5 was seen on an H100); fp16: 2e-2; bf16 (8 significant bits): 1e-1."""
    if dtype == torch.bfloat16:
        return 1e-1
    if dtype == torch.float16:
        return 2e-2
    return 1e-5 if torch.device(device).type == "cpu" else 1e-4


def attention_without_per_shape_plans(device: torch.device) -> contextlib.AbstractContextManager:
    """On a GPU, scaled-dot-product attention without the cuDNN backend: cuDNN plans a kernel per new batch shape,
    and the engine's batches (left-padded prefixes, right-padded tails, continuation rows) rarely repeat a shape.
    Measured on an H200 (bench/gpu.py, bf16, 4-option questions of ~170 tokens): at a 4,096-token budget the 1B
    Llama shape scored 6.70 -> 4.33 s and the 8B 7.26 -> 3.18 s without it, the same scores within bf16 noise.
    The memory-efficient and flash kernels (and the math fallback) stay available; a CPU is left as it is."""
    if device.type != "cuda":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])


def model_input_device(model: PreTrainedModel) -> torch.device:
    from choicelab.lm.loading import input_device

    return input_device(model)


def _log_not_in(logprobs: torch.Tensor, excluded: torch.Tensor | None) -> torch.Tensor:
    """log(1 - sum_{t in excluded} p(t)) for each row of a log-softmax matrix."""
    if excluded is None or excluded.numel() == 0:
        return torch.zeros(logprobs.shape[0], dtype=logprobs.dtype)
    mass = torch.logsumexp(logprobs.index_select(-1, excluded.to(logprobs.device)), dim=-1)
    return torch.log1p(-torch.exp(mass).clamp(max=1.0 - 1e-12))


@dataclass(frozen=True)
class PrefixGroup:
    """Distinct contexts that share their first ``length`` tokens (a group of one: the whole context)."""

    length: int
    contexts: tuple[tuple[int, ...], ...]


def _common_length(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for k in range(n):
        if a[k] != b[k]:
            return k
    return n


def shared_prefix_groups(contexts: Sequence[tuple[int, ...]], min_shared: int | None) -> list[PrefixGroup]:
    """Group lexicographically sorted contexts whose common prefix is worth running once.

    Greedy over neighbours: a context joins the current group when it shares at least ``min_shared`` tokens with it
    and the tokens saved grow: k members sharing L tokens save (k - 1) * L, so a newcomer that cuts the shared length
    to L' joins only if k * L' > (k - 1) * L. ``min_shared=None`` turns sharing off (every context alone).
    """
    groups: list[PrefixGroup] = []
    members: list[tuple[int, ...]] = []
    shared = 0
    for ctx in contexts:
        if members and min_shared is not None:
            common = min(shared, _common_length(members[-1], ctx))
            if common >= max(min_shared, 1) and len(members) * common > (len(members) - 1) * shared:
                members.append(ctx)
                shared = common
                continue
        if members:
            groups.append(PrefixGroup(shared, tuple(members)))
        members, shared = [ctx], len(ctx)
    if members:
        groups.append(PrefixGroup(shared, tuple(members)))
    return groups


@dataclass
class _RunContexts:
    """Contexts that have been run: the log-probs after each one's last token and its KV cache, left-padded."""

    contexts: list[tuple[int, ...]]
    last_logprobs: torch.Tensor
    layers: list[tuple[torch.Tensor, torch.Tensor]]
    mask: torch.Tensor

    def select(self, rows: list[int], contexts: list[tuple[int, ...]]) -> _RunContexts:
        width = max(len(c) for c in contexts)
        index = torch.tensor(rows)
        return _RunContexts(
            contexts,
            self.last_logprobs.index_select(0, index.to(self.last_logprobs.device)),
            [
                (
                    k.index_select(0, index.to(k.device))[:, :, -width:],
                    v.index_select(0, index.to(v.device))[:, :, -width:],
                )
                for k, v in self.layers
            ],
            self.mask.index_select(0, index)[:, -width:],
        )


class CausalScorer:
    """Scores (context, continuation) requests with a causal LM (the :class:`choicelab.lm.scorer.Scorer` protocol).
    See the module docstring."""

    kind = "causal"

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        *,
        max_batch_tokens: int | str = AUTO,
        add_bos: bool | None = None,
        share_prefixes: bool = True,
        min_shared_prefix: int = 8,
    ) -> None:
        check_transformers_version()
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.encoder = RequestEncoder(tokenizer, add_bos=add_bos)
        self.max_batch_tokens = token_budget(model, max_batch_tokens)  # "auto": sized from free device memory
        self.share_prefixes = share_prefixes
        self.min_shared_prefix = min_shared_prefix
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_id = int(pad)
        self.device = model_input_device(model)
        self.oom_retries = 0  # how often the budget was halved (also logged)
        self.max_length = _max_context_length(model)

    # -- public API ---------------------------------------------------------------------------------------
    def score(
        self,
        requests: Sequence[ContinuationRequest],
        terminal_excluded_ids: Iterable[int] | None = None,
    ) -> list[ContinuationScore]:
        """Score every request; results come back in request order."""
        with attention_without_per_shape_plans(self.device):
            return self._score(requests, terminal_excluded_ids)

    def _score(self, requests: Sequence[ContinuationRequest],
               terminal_excluded_ids: Iterable[int] | None) -> list[ContinuationScore]:
        encoded = self.encoder.encode([r.context for r in requests], [r.continuation for r in requests])
        self._check_lengths(requests, encoded)
        excluded = (
            torch.tensor(sorted(set(terminal_excluded_ids)), dtype=torch.long, device=self.device)
            if terminal_excluded_ids is not None
            else None
        )
        want_terminal = terminal_excluded_ids is not None
        by_context: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for index, enc in enumerate(encoded):
            by_context[enc.context_ids].append(index)
        min_shared = self.min_shared_prefix if self.share_prefixes else None
        groups = shared_prefix_groups(sorted(by_context), min_shared)
        groups.sort(key=lambda group: (group.length, group.contexts[0][: group.length]))
        results: list[ContinuationScore | None] = [None] * len(requests)
        pending = deque(groups)
        while pending:
            batch = self._next_prefix_batch(pending)
            try:
                for contexts in self._run_contexts(batch):
                    members = [(row, i) for row, ctx in enumerate(contexts.contexts) for i in by_context[ctx]]
                    self._score_members(contexts, members, requests, encoded, excluded, want_terminal, results)
            except (torch.OutOfMemoryError, RuntimeError) as error:
                if not is_out_of_memory(error):
                    raise
                self._halve_budget(error, batch)
                pending.extendleft(reversed(batch))  # the same groups again, in smaller batches
        return [r for r in results if r is not None]

    def score_naive(self, requests: Sequence[ContinuationRequest],
                    terminal_excluded_ids: Iterable[int] | None = None) -> list[ContinuationScore]:
        """The reference for :meth:`score` (:func:`score_naive`), with this scorer's tokenization."""
        return score_naive(self.model, self.tokenizer, requests, terminal_excluded_ids, add_bos=self.encoder.add_bos)

    def sample(self, prompts: Sequence[tuple[str, str]], *, max_new_tokens: int, temperature: float,
               seed: int) -> list[Generation]:
        """Seeded sampling under this scorer's token budget (:func:`choicelab.lm.generate.sample`)."""
        from choicelab.lm.generate import sample

        return sample(self.model, self.tokenizer, prompts, max_new_tokens=max_new_tokens, temperature=temperature,
                      seed=seed, max_batch_tokens=self.max_batch_tokens)

    def embed_texts(self, texts: Sequence[str], *, batch_size: int = 8, max_length: int = 512):
        """Unit-norm last-token embeddings (:func:`choicelab.lm.embed.embed_texts`, kind ``causal``)."""
        from choicelab.lm.embed import embed_texts

        return embed_texts(self.model, self.tokenizer, texts, kind=self.kind, batch_size=batch_size,
                           max_length=max_length)

    def _halve_budget(self, error: BaseException, batch: list[PrefixGroup]) -> None:
        longest = max(len(ctx) for group in batch for ctx in group.contexts)
        if self.max_batch_tokens // 2 < max(16, longest):
            raise RuntimeError(
                f"out of memory with a token budget of {self.max_batch_tokens} (already halved {self.oom_retries} "
                f"times) on contexts of up to {longest} tokens: the model needs more GPU memory (raise 'gpu:' for "
                "this model to split it over more GPUs) or shorter prompts"
            ) from error
        self.max_batch_tokens //= 2
        self.oom_retries += 1
        log.warning("out of memory (%s): token budget halved to %d; retrying %d prefix groups",
                    str(error).splitlines()[0][:120], self.max_batch_tokens, len(batch))
        del error
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def _next_prefix_batch(self, pending: deque[PrefixGroup]) -> list[PrefixGroup]:
        """Take the next batch of prefix groups under the token budget (at least one group)."""
        batch = [pending.popleft()]
        while pending:
            longest = max(pending[0].length, *(g.length for g in batch))
            if longest * (len(batch) + 1) > self.max_batch_tokens:
                break
            batch.append(pending.popleft())
        return batch

    # -- internals -----------------------------------------------------------------------------------------
    def _check_lengths(self, requests: Sequence[ContinuationRequest], encoded: Sequence[EncodedRequest]) -> None:
        for req, enc in zip(requests, encoded, strict=True):
            if not enc.continuation_ids:
                raise ValueError(f"request {req.id!r}: the continuation {req.continuation!r} has no tokens")
            if self.max_length is None:
                continue
            total = len(enc.context_ids) + len(enc.continuation_ids)
            if total > self.max_length:
                raise ValueError(
                    f"request {req.id!r} has {total} tokens, longer than the model's context window of "
                    f"{self.max_length}; shorten the prompt (fewer few-shot examples) "
                    "or use a model with a longer window"
                )

    def _run_contexts(self, batch: list[PrefixGroup]) -> Iterable[_RunContexts]:
        """Phase 0 on the batch's prefixes, then phase 1 on the tokens after them; yields the contexts run."""
        prefixes = self._run_prefixes([g.contexts[0][: g.length] for g in batch])
        whole = [(row, ctx) for row, g in enumerate(batch) for ctx in g.contexts if len(ctx) == g.length]
        if whole:
            yield prefixes.select([row for row, _ in whole], [ctx for _, ctx in whole])
        tails = sorted(
            ((row, ctx) for row, g in enumerate(batch) for ctx in g.contexts if len(ctx) > g.length),
            key=lambda tail: (len(tail[1]) - len(prefixes.contexts[tail[0]]), tail[1]),
        )
        for chunk in self._tail_chunks(tails, prefixes):
            yield self._run_tails(prefixes, chunk)

    def _tail_chunks(
        self, tails: list[tuple[int, tuple[int, ...]]], prefixes: _RunContexts
    ) -> Iterable[list[tuple[int, tuple[int, ...]]]]:
        chunk: list[tuple[int, tuple[int, ...]]] = []
        for tail in tails:
            rows = chunk + [tail]
            cache_width = max(len(prefixes.contexts[row]) for row, _ in rows)
            tail_width = max(len(ctx) - len(prefixes.contexts[row]) for row, ctx in rows)
            if chunk and (cache_width + tail_width) * len(rows) > self.max_batch_tokens:
                yield chunk
                chunk = []
            chunk.append(tail)
        if chunk:
            yield chunk

    @torch.inference_mode()
    def _run_prefixes(self, prefixes: list[tuple[int, ...]]) -> _RunContexts:
        """Phase 0: left-padded prefixes, one forward; the last position's log-probs and the KV cache."""
        input_ids, mask, positions = left_padded(prefixes, self.pad_id)
        out = self.model(
            input_ids=input_ids.to(self.device),
            attention_mask=mask.to(self.device),
            position_ids=positions.to(self.device),
            past_key_values=DynamicCache(),
            use_cache=True,
            logits_to_keep=1,
        )
        last_logprobs = torch.log_softmax(out.logits[:, -1, :].float(), dim=-1)
        layers = [(layer.keys, layer.values) for layer in out.past_key_values.layers]
        return _RunContexts(list(prefixes), last_logprobs, layers, mask)

    @torch.inference_mode()
    def _run_tails(self, prefixes: _RunContexts, chunk: list[tuple[int, tuple[int, ...]]]) -> _RunContexts:
        """Phase 1: each context's tokens after its prefix, right-padded after a copy of the prefix's cache."""
        rows = [row for row, _ in chunk]
        prefix_lengths = torch.tensor([len(prefixes.contexts[row]) for row in rows])
        cache_width = int(prefix_lengths.max())
        tails = [ctx[len(prefixes.contexts[row]) :] for row, ctx in chunk]
        tail_lengths = torch.tensor([len(t) for t in tails])
        tail_width = int(tail_lengths.max())
        tail_ids = torch.full((len(chunk), tail_width), self.pad_id, dtype=torch.long)
        tail_mask = torch.zeros((len(chunk), tail_width), dtype=torch.long)
        for r, tail in enumerate(tails):
            tail_ids[r, : len(tail)] = torch.tensor(tail)
            tail_mask[r, : len(tail)] = 1
        row_index = torch.tensor(rows)
        cache = DynamicCache(
            ddp_cache_data=[
                (
                    k.index_select(0, row_index.to(k.device))[:, :, -cache_width:],
                    v.index_select(0, row_index.to(v.device))[:, :, -cache_width:],
                )
                for k, v in prefixes.layers
            ]
        )
        prefix_mask = prefixes.mask.index_select(0, row_index)[:, -cache_width:]
        out = self.model(
            input_ids=tail_ids.to(self.device),
            attention_mask=torch.cat([prefix_mask, tail_mask], dim=1).to(self.device),
            position_ids=(prefix_lengths[:, None] + torch.arange(tail_width)[None, :]).to(self.device),
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=(tail_lengths - 1)[:, None].to(self.device),
        )
        last_logprobs = torch.log_softmax(out.logits[:, 0, :].float(), dim=-1)
        # Each row's real tokens are contiguous: the prefix ends the cache and the tail follows it. Gather them into
        # one left-padded block, the layout phase 2 expects (padding slots repeat slot 0 and are masked out).
        lengths = prefix_lengths + tail_lengths
        width = int(lengths.max())
        ends = cache_width + tail_lengths
        slots = (ends[:, None] - width + torch.arange(width)[None, :]).clamp(min=0)
        mask = (torch.arange(width)[None, :] >= (width - lengths)[:, None]).long()
        layers = []
        for layer in out.past_key_values.layers:
            index = slots.to(layer.keys.device)[:, None, :, None]
            layers.append(
                (
                    layer.keys.gather(2, index.expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])),
                    layer.values.gather(2, index.expand(-1, layer.values.shape[1], -1, layer.values.shape[3])),
                )
            )
        return _RunContexts([ctx for _, ctx in chunk], last_logprobs, layers, mask)

    @torch.inference_mode()
    def _score_members(
        self,
        contexts: _RunContexts,
        members: list[tuple[int, int]],
        requests: Sequence[ContinuationRequest],
        encoded: Sequence[EncodedRequest],
        excluded: torch.Tensor | None,
        want_terminal: bool,
        results: list[ContinuationScore | None],
    ) -> None:
        """Every continuation of the contexts run: the first token from their last log-probs, the rest in phase 2."""
        width = contexts.mask.shape[1]
        last_logprobs = contexts.last_logprobs
        ctx_lengths = torch.tensor([len(c) for c in contexts.contexts])

        # Continuations that need phase 2: more than one token, or a terminal factor after the last token.
        first_pass: dict[int, tuple[list[float], float | None]] = {}
        phase2: list[tuple[int, int]] = []
        for ctx_row, index in members:
            cont = encoded[index].continuation_ids
            row_lp = last_logprobs[ctx_row]
            if not cont:
                terminal = float(_log_not_in(row_lp[None], excluded)[0]) if want_terminal else None
                first_pass[index] = ([], terminal)
                continue
            first_pass[index] = ([float(row_lp[cont[0]])], None)
            if len(cont) > 1 or want_terminal:
                phase2.append((ctx_row, index))

        for chunk in self._continuation_chunks(phase2, encoded, width):
            self._score_continuations(
                chunk, encoded, contexts.layers, contexts.mask, ctx_lengths, excluded, want_terminal, first_pass
            )

        for _ctx_row, index in members:
            logprobs, terminal = first_pass[index]
            enc = encoded[index]
            results[index] = ContinuationScore(
                id=requests[index].id,
                token_ids=enc.continuation_ids,
                token_logprobs=tuple(logprobs),
                boundary_merged=enc.boundary_merged,
                terminal_logprob=terminal,
            )

    def _continuation_chunks(
        self, phase2: list[tuple[int, int]], encoded: Sequence[EncodedRequest], width: int
    ) -> Iterable[list[tuple[int, int]]]:
        chunk: list[tuple[int, int]] = []
        longest = 0
        for item in phase2:
            length = len(encoded[item[1]].continuation_ids)
            new_longest = max(longest, length)
            if chunk and (width + new_longest) * (len(chunk) + 1) > self.max_batch_tokens:
                yield chunk
                chunk, new_longest = [], length
            chunk.append(item)
            longest = new_longest
        if chunk:
            yield chunk

    def _score_continuations(
        self,
        chunk: list[tuple[int, int]],
        encoded: Sequence[EncodedRequest],
        layers: list[tuple[torch.Tensor, torch.Tensor]],
        ctx_mask: torch.Tensor,
        ctx_lengths: torch.Tensor,
        excluded: torch.Tensor | None,
        want_terminal: bool,
        first_pass: dict[int, tuple[list[float], float | None]],
    ) -> None:
        rows = torch.tensor([ctx_row for ctx_row, _ in chunk])
        conts = [encoded[index].continuation_ids for _, index in chunk]
        longest = max(len(c) for c in conts)
        cont_ids = torch.full((len(chunk), longest), self.pad_id, dtype=torch.long)
        cont_mask = torch.zeros((len(chunk), longest), dtype=torch.long)
        keep = torch.zeros((len(chunk), longest), dtype=torch.bool)
        for r, cont in enumerate(conts):
            cont_ids[r, : len(cont)] = torch.tensor(cont)
            cont_mask[r, : len(cont)] = 1
            keep[r, : len(cont) - 1] = True  # position j predicts token j + 1
            if want_terminal:
                keep[r, len(cont) - 1] = True  # the last position predicts what follows the continuation
        cache = DynamicCache(
            ddp_cache_data=[
                (k.index_select(0, rows.to(k.device)), v.index_select(0, rows.to(v.device))) for k, v in layers
            ]
        )
        attention = torch.cat([ctx_mask.index_select(0, rows), cont_mask], dim=1)
        positions = ctx_lengths.index_select(0, rows)[:, None] + torch.arange(longest)[None, :]
        out = self.model(
            input_ids=cont_ids.to(self.device),
            attention_mask=attention.to(self.device),
            position_ids=positions.to(self.device),
            past_key_values=cache,
            use_cache=False,
            logits_to_keep=keep.to(self.device),
        )
        logits = out.logits.reshape(-1, out.logits.shape[-1])
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        cursor = 0
        for (_, index), cont in zip(chunk, conts, strict=True):
            n_next = len(cont) - 1
            scored, _ = first_pass[index]
            if n_next:
                block = logprobs[cursor : cursor + n_next]
                targets = torch.tensor(cont[1:], device=block.device)
                scored.extend(block.gather(1, targets[:, None]).squeeze(1).tolist())
                cursor += n_next
            terminal = None
            if want_terminal:
                terminal = float(_log_not_in(logprobs[cursor : cursor + 1], excluded)[0])
                cursor += 1
            first_pass[index] = (scored, terminal)


def _max_context_length(model: PreTrainedModel) -> int | None:
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    value = getattr(config, "max_position_embeddings", None)
    return int(value) if value else None


@torch.inference_mode()
def score_naive(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    requests: Sequence[ContinuationRequest],
    terminal_excluded_ids: Iterable[int] | None = None,
    add_bos: bool | None = None,
) -> list[ContinuationScore]:
    """Reference scorer: one full forward per request over context + continuation, LM head on every position, with
    the inputs on the model's input device (CPU, a GPU, or the first device of a split model)."""
    encoder = RequestEncoder(tokenizer, add_bos=add_bos)
    encoded = encoder.encode([r.context for r in requests], [r.continuation for r in requests])
    device = model_input_device(model)
    excluded = (
        torch.tensor(sorted(set(terminal_excluded_ids)), dtype=torch.long)
        if terminal_excluded_ids is not None
        else None
    )
    scores = []
    for req, enc in zip(requests, encoded, strict=True):
        ids = torch.tensor([list(enc.context_ids) + list(enc.continuation_ids)], device=device)
        logprobs = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1).cpu()
        start = len(enc.context_ids)
        token_lp = [float(logprobs[start + j - 1, t]) for j, t in enumerate(enc.continuation_ids)]
        terminal = None
        if terminal_excluded_ids is not None:
            terminal = float(_log_not_in(logprobs[-1:], excluded)[0])
        scores.append(ContinuationScore(req.id, enc.continuation_ids, tuple(token_lp), enc.boundary_merged, terminal))
    return scores
