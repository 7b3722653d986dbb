"""Test helpers shipped with the package (as DRF does): local servers speaking real protocols."""
