"""Analyses of dual-criticality sporadic task sets (rtsched.mc): Vestal's model on one core and on many."""
