"""The synthetic world: scenes, the renderer that draws them with their exact truth, random scenes and
random play, and the virtual table of ``referee demo`` and the benchmarks.

No reader imports it: a reading never leans on the renderer's truth. It ships with the referee because
the demonstration plays at its virtual table.
"""
