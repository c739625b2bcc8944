/* Benchmarks/copy-floor.c - the CPU floor of copying files with and without hashing them, for
 * throughput.sh's export/cp comparison. Best user+sys CPU seconds of 5 passes over FILES.
 *   cc -O2 Benchmarks/copy-floor.c -o /tmp/copy-floor -lcrypto
 *   /tmp/copy-floor MODE OUTDIR FILES...   (e.g. FILES = find LIB/ExternalData -type f)
 * MODE 4: read 128 KiB + SHA-256 + write (what export does); 0: read + SHA-256, then
 * copy_file_range; 1: mmap + SHA-256 + write; 2: mmap + SHA-256, then copy_file_range;
 * 3: copy_file_range alone (what cp does, no hash). Not part of the build. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include <sys/resource.h>
int main(int argc,char**argv){ int mode=atoi(argv[1]); size_t n=131072; char*buf=malloc(n); double best=1e9;
 for(int rep=0;rep<5;rep++){ struct rusage a,b; getrusage(RUSAGE_SELF,&a);
 for(int i=3;i<argc;i++){ int in=open(argv[i],O_RDONLY); char out[4096]; snprintf(out,sizeof out,"%s/x%d",argv[2],i); unlink(out); int o=open(out,O_WRONLY|O_CREAT|O_TRUNC,0644);
  struct stat st; fstat(in,&st);
  EVP_MD_CTX*c=EVP_MD_CTX_new(); EVP_DigestInit_ex(c,EVP_sha256(),0); ssize_t r;
  if(mode==0){ while((r=read(in,buf,n))>0){ EVP_DigestUpdate(c,buf,r);} loff_t x=0; while(copy_file_range(in,&x,o,NULL,st.st_size-x,0)>0); }
  else if(mode==1){ void*m=mmap(0,st.st_size,PROT_READ,MAP_PRIVATE|MAP_POPULATE,in,0); EVP_DigestUpdate(c,m,st.st_size); write(o,m,st.st_size); munmap(m,st.st_size);}
  else if(mode==2){ void*m=mmap(0,st.st_size,PROT_READ,MAP_PRIVATE|MAP_POPULATE,in,0); EVP_DigestUpdate(c,m,st.st_size); munmap(m,st.st_size); loff_t x=0; while(copy_file_range(in,&x,o,NULL,st.st_size-x,0)>0); }
  else if(mode==3){ loff_t x=0; while(copy_file_range(in,&x,o,NULL,st.st_size-x,0)>0); }
  else if(mode==4){ while((r=read(in,buf,n))>0){ EVP_DigestUpdate(c,buf,r); write(o,buf,r);} }
  unsigned char d[32]; unsigned l; EVP_DigestFinal_ex(c,d,&l); EVP_MD_CTX_free(c); close(in); close(o);}
 getrusage(RUSAGE_SELF,&b); double t=(b.ru_utime.tv_sec-a.ru_utime.tv_sec)+(b.ru_stime.tv_sec-a.ru_stime.tv_sec)+1e-6*((b.ru_utime.tv_usec-a.ru_utime.tv_usec)+(b.ru_stime.tv_usec-a.ru_stime.tv_usec)); if(t<best)best=t;}
 printf("mode %d: best cpu %.3f s\n",mode,best); }
