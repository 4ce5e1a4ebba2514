/* scnlabels — a scenario's label values (see scnlabels.h). */
#include "config/scnlabels.h"

void scn_labels_add(struct metric_labels *L, const struct scenario *sc)
{
	const struct cluster *cl = &sc->cl;
	if (sc->workload == SCN_SYNTH) {
		for (int32_t k = 0; k < sc->org.nt; k++)
			metric_labels_add(L, "tenant", sc->org.t[k].name);
		for (int32_t k = 0; k < sc->synth.nservices; k++)
			metric_labels_add(L, "service", sc->synth.svc[k].name);
	} else {
		L->open |= METRIC_L_TENANT | METRIC_L_SERVICE;
	}
	if (sc->from_inventory) {
		L->open |= METRIC_L_GPU | METRIC_L_TYPE | METRIC_L_RACK;
		return;
	}
	for (int32_t t = 0; t < cl->ntypes; t++) {
		metric_labels_add(L, "type", cl->types[t].name);
		if (cl->types[t].gpu_model >= 0)
			metric_labels_add(L, "gpu", cl->cat.gpus[cl->types[t].gpu_model].name);
	}
	if (sc->from_trace)
		L->open |= METRIC_L_RACK;
	for (int32_t r = 0; r < cl->nracks; r++)
		metric_labels_add(L, "rack", cl->racks[r].name);
}
