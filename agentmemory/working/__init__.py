"""Working memory: sessions and turns, the window and rolling summary, and extraction into long-term memory."""
