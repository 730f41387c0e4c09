"""trilab's studies: one module per command, and what they share.

Shared: :mod:`trilab.analysis.common` (StudyError, the results folder, the
executor of ``--jobs``/``--dask``, the resume guard),
:mod:`trilab.analysis.stats` (the Wilson interval),
:mod:`trilab.analysis.artifacts` (atomic files and metadata),
:mod:`trilab.analysis.executors` and :mod:`trilab.analysis.plots`.

Every game: :mod:`trilab.analysis.simulation` (``trilab simulate`` and
``trilab report GAME``), :mod:`trilab.analysis.overview` and
:mod:`trilab.analysis.report_html` (``trilab report``),
:mod:`trilab.analysis.trio_board_view` (``trilab board``).  Trike only:
:mod:`trilab.analysis.trike`.
"""
