/* Files compiled into the binary: the default scenario, the guian
 * scenario (what plans and sweeps start from), the hardware
 * catalog and the FGD paper's published results (analysis/fragref.c), so
 * that `hetlab run` and `hetlab frag` work from any directory. Paths are
 * relative to the repository root, where make runs the assembler. */
	.section .rodata
	.global hl_embed_default, hl_embed_default_end
	.global hl_embed_guian, hl_embed_guian_end
	.global hl_embed_gpus, hl_embed_gpus_end
	.global hl_embed_cpus, hl_embed_cpus_end
	.global hl_embed_mig, hl_embed_mig_end
	.global hl_embed_fgdref, hl_embed_fgdref_end
hl_embed_default:
	.incbin "scenarios/default.json"
hl_embed_default_end:
	.byte 0
hl_embed_guian:
	.incbin "scenarios/guian.json"
hl_embed_guian_end:
	.byte 0
hl_embed_gpus:
	.incbin "scenarios/catalog/gpus.json"
hl_embed_gpus_end:
	.byte 0
hl_embed_cpus:
	.incbin "scenarios/catalog/cpus.json"
hl_embed_cpus_end:
	.byte 0
hl_embed_mig:
	.incbin "scenarios/catalog/mig.json"
hl_embed_mig_end:
	.byte 0
hl_embed_fgdref:
	.incbin "traces/data/alibaba-gpu-v2023-openb/published_alloc.csv"
hl_embed_fgdref_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
