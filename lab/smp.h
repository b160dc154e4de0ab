/* SPDX-License-Identifier: MIT */
#ifndef LAB_SMP_H
#define LAB_SMP_H

void smp_boot(void);                 /* start every CPU the MADT lists */
void smp_call_all(void (*fn)(void)); /* run @fn on every CPU, wait for all */
void smp_handle_call(void);          /* VEC_CALL handler body */
/* An AP being started (ap_main, main.c): its struct cpu, then "I am up". */
struct cpu *smp_booting_cpu(void);
void smp_ap_online(void);

#endif
