"""Where ``analyze`` runs: ``tasks`` cuts the input into pure tasks and puts their outcomes back in
order; ``local`` maps them over this machine's cores, ``dask`` over a Dask cluster."""
