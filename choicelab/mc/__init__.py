"""The multiple-choice layer every MC study shares: the item contract (mc_items/1), scoring items into logit dumps,
fine-tuning encoders with a multiple-choice head, and the public commonsense benchmarks."""
