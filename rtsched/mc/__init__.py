"""Mixed-criticality (Vestal) task sets: the model, files, generators' output and the mode-switch simulator."""
