"""Budgets of a build the rules and the recommender both read: power (`power`), PCIe lanes (`lanes`),
GPU-to-GPU links (`links`). Facts, not judgements: the rules decide what a budget overrun means."""
