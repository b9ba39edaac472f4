"""A multiple-choice head for DeBERTa v1 (``microsoft/deberta-base``), which transformers does not ship.

The bets paper fine-tunes ``microsoft/deberta-base`` with HF's run_swag, i.e. a multiple-choice head. transformers
has ``DebertaV2ForMultipleChoice`` but no v1 class, so ``AutoModelForMultipleChoice`` fails on that checkpoint.
This class is the v2 head on the v1 encoder, built from transformers' own v1 parts: each (prompt, choice) pair is
encoded, the first token's state goes through DeBERTa's ContextPooler (dense + activation, as in
``DebertaForSequenceClassification``), dropout (``cls_dropout``, else the hidden dropout) and a linear layer to
one score; the scores of an item's choices are its logits, trained with cross-entropy on the correct choice.
The encoder's weights load from the checkpoint (prefix ``deberta``); the pooler and the scorer are new, initialised
by the model's ``_init_weights`` from the seed the caller sets.

Importing this module registers the class with ``AutoModelForMultipleChoice`` for ``DebertaConfig``.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import AutoModelForMultipleChoice, DebertaConfig
from transformers.modeling_outputs import MultipleChoiceModelOutput
from transformers.models.deberta.modeling_deberta import ContextPooler, DebertaModel, DebertaPreTrainedModel


class DebertaForMultipleChoice(DebertaPreTrainedModel):
    def __init__(self, config: DebertaConfig) -> None:
        super().__init__(config)
        self.deberta = DebertaModel(config)
        self.pooler = ContextPooler(config)
        self.classifier = nn.Linear(self.pooler.output_dim, 1)
        dropout = getattr(config, "cls_dropout", None)
        self.dropout = nn.Dropout(config.hidden_dropout_prob if dropout is None else dropout)
        self.post_init()

    def get_input_embeddings(self) -> nn.Module:
        return self.deberta.get_input_embeddings()

    def set_input_embeddings(self, value: nn.Module) -> None:
        self.deberta.set_input_embeddings(value)

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        output_attentions: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> MultipleChoiceModelOutput:
        """Inputs are (batch, choices, length); logits (batch, choices)."""
        reference = input_ids if input_ids is not None else inputs_embeds
        if reference is None:
            raise ValueError("DebertaForMultipleChoice needs input_ids or inputs_embeds")
        num_choices = reference.shape[1]

        def flat(tensor: torch.Tensor | None) -> torch.Tensor | None:
            return None if tensor is None else tensor.reshape(-1, tensor.shape[-1])

        outputs = self.deberta(
            flat(input_ids),
            attention_mask=flat(attention_mask),
            token_type_ids=flat(token_type_ids),
            position_ids=flat(position_ids),
            inputs_embeds=None if inputs_embeds is None else inputs_embeds.reshape(-1, *inputs_embeds.shape[-2:]),
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=True,
        )
        pooled = self.dropout(self.pooler(outputs.last_hidden_state))
        logits = self.classifier(pooled).view(-1, num_choices)
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return MultipleChoiceModelOutput(
            loss=loss, logits=logits, hidden_states=outputs.hidden_states, attentions=outputs.attentions
        )


AutoModelForMultipleChoice.register(DebertaConfig, DebertaForMultipleChoice, exist_ok=True)
