"""Match orchestration: rotation, seating, simulated and live matches."""
