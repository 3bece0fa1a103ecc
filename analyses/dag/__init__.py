"""Analyses of sporadic parallel DAG tasks (rtsched.dag): federated and global scheduling."""
